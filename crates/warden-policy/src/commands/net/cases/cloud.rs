//! aws, az, gcloud, doctl, hcloud.
use crate::commands::testing::{is_interactive, is_read, is_write};

#[test]
fn aws() {
    for line in [
        "aws ec2 describe-instances",
        "aws ec2 describe-instances --output json --region us-east-1",
        "aws --region us-east-1 ec2 describe-instances",
        "aws ec2 describe-instances --query Reservations[*].Instances[*].InstanceId",
        "aws ec2 describe-instances --debug --no-cli-pager",
        "aws ec2 describe-images --max-items 20 --starting-token abc123",
        "aws s3 ls",
        "aws s3 ls s3://bucket/prefix/ --recursive --human-readable",
        "aws s3 cp s3://bucket/key -",
        "aws s3api list-buckets",
        "aws s3api head-bucket --bucket my-bucket",
        "aws s3api get-bucket-location --bucket my-bucket",
        "aws lambda get-function --function-name f",
        "aws cloudtrail lookup-events",
        "aws logs filter-log-events --log-group-name g",
        "aws logs tail /aws/lambda/f --since 1h",
        "aws dynamodb scan --table-name t",
        "aws sts get-caller-identity",
        "aws configure list",
        "aws configure get region",
        "aws ec2 wait instance-running --instance-ids i-1",
        "aws ec2 help",
        "aws ec2 describe-instances help",
        "aws --version",
        "aws iam simulate-principal-policy --policy-source-arn a --action-names s3:GetObject",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "aws",
        "aws ec2",
        "aws EC2 describe-instances",
        "aws ec2 DESCRIBE-INSTANCES",
        "aws ec2 run-instances --image-id ami-12345",
        "aws ec2 terminate-instances --instance-ids i-12345",
        "aws ec2 invalid-operation",
        "aws s3 cp file.txt s3://bucket/",
        "aws s3 cp s3://bucket/key ./local",
        "aws s3 sync . s3://bucket/",
        "aws s3 rm s3://bucket/file.txt",
        "aws s3 mb s3://new-bucket",
        "aws s3 rb s3://bucket",
        "aws s3 presign s3://bucket/key",
        "aws s3api get-object --bucket b --key k out.bin",
        "aws s3api put-object --bucket bucket --key file",
        "aws lambda invoke --function-name test out.json",
        "aws configure",
        "aws configure set region us-east-1",
        "aws sso login",
        "aws ecs run-task --cluster test --task-definition web",
        "aws ec2 describe-instances --cli-auto-prompt",
    ] {
        assert!(!is_read(line), "{line}");
    }
    assert!(is_interactive("aws logs tail /aws/lambda/f --follow"));
}

#[test]
fn az() {
    for line in [
        "az account list",
        "az account show",
        "az account list-locations",
        "az group exists --name g",
        "az vm list --output table",
        "az vm show --name v --resource-group g",
        "az vm get-instance-view --name v --resource-group g",
        "az aks get-versions --location eastus",
        "az network application-gateway show-backend-health --name x --resource-group g",
        "az storage account check-name --name x",
        "az vm list --query [].name",
        "az help",
        "az vm list --help",
        "az vm create --help",
        "az version",
        "az rest --uri https://management.azure.com/x",
        "az rest --method get --uri x",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "az",
        "az login",
        "az account set --subscription s",
        "az vm create --name v --resource-group g",
        "az vm delete --name v --resource-group g",
        "az vm run-command invoke --name v --command-id RunShellScript",
        "az aks get-credentials --name c --resource-group g",
        "az storage blob upload --file f --container-name c",
        "az VM list",
        "az vm LIST",
        "az vm invalid-operation",
        "az rest --method post --uri x",
        "az webapp restart --name w --resource-group g",
    ] {
        assert!(!is_read(line), "{line}");
    }
    assert!(is_interactive(
        "az webapp log tail --name w --resource-group g"
    ));
}

#[test]
fn gcloud_doctl_hcloud() {
    for line in [
        "gcloud compute instances list",
        "gcloud compute instances list --format=json --filter=status=RUNNING",
        "gcloud --project p compute instances describe vm --zone us-central1-a",
        "gcloud container clusters list",
        "gcloud config list",
        "gcloud config get-value project",
        "gcloud auth list",
        "gcloud projects get-iam-policy p",
        "gcloud info",
        "gcloud version",
        "gcloud logging read severity>=ERROR --limit 10",
        "gcloud beta run services list",
        "gcloud storage ls gs://b",
        "gcloud secrets versions access latest --secret s",
        "gcloud compute instances get-serial-port-output vm",
        "doctl compute droplet list",
        "doctl compute droplet get 123",
        "doctl kubernetes cluster list",
        "doctl account get",
        "doctl version",
        "hcloud server list",
        "hcloud server describe web",
        "hcloud context list",
        "hcloud version",
    ] {
        assert!(is_read(line), "{line}");
    }
    for line in [
        "gcloud compute instances delete vm",
        "gcloud compute instances delete list",
        "gcloud compute instances create vm",
        "gcloud container clusters get-credentials c",
        "gcloud config set project p",
        "gcloud auth login",
        "gcloud run deploy svc --image i",
        "gcloud secrets versions access latest --secret s --out-file=f",
        "gcloud frobnicate list",
        "gcloud compute instances list --flags-file=f.yaml",
        "doctl compute droplet create web",
        "doctl compute droplet delete 123",
        "doctl compute droplet d list",
        "doctl kubernetes cluster kubeconfig save c",
        "hcloud server delete web",
        "hcloud server create --name x",
        "hcloud context use prod",
        "hcloud server list --debug-file f",
    ] {
        assert!(!is_read(line), "{line}");
    }
    assert!(is_interactive("gcloud compute ssh vm"));
    assert!(is_interactive("gcloud logging tail"));
    assert!(is_interactive("doctl compute ssh web"));
    assert!(is_interactive("hcloud server ssh web"));
}

#[test]
fn mutations_are_writes() {
    assert!(is_write("aws ec2 delete-volume --volume-id v"));
    assert!(is_write("az group delete --name g"));
}

#[test]
fn help_and_output_files() {
    assert!(is_read("aws ec2 help"));
    assert!(is_write("aws s3 cp help s3://b/x"));
    assert!(is_write("az rest --uri x --output-file f"));
    assert!(is_read("gcloud components list"));
    assert!(is_read(
        "gcloud auth application-default print-access-token"
    ));
    assert!(is_write("curl --engine e https://x"));
}
