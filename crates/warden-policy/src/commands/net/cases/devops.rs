//! terraform, vault, consul, nomad, packer, ansible, tailscale, cloudflared.
use crate::commands::testing::{is_interactive, is_read, is_write};

#[test]
fn reads() {
    for line in [
        "terraform show",
        "terraform show -json",
        "terraform version",
        "terraform -version",
        "terraform validate",
        "terraform fmt -check",
        "terraform fmt -check -recursive",
        "terraform output -json",
        "terraform state list",
        "terraform state show aws_instance.web",
        "terraform state pull",
        "terraform providers",
        "terraform graph",
        "terraform workspace list",
        "terraform -chdir=infra state list",
        "tofu state list",
        "vault status",
        "vault read secret/data/x",
        "vault kv get secret/x",
        "vault kv get -field=password secret/x",
        "vault kv list secret/",
        "vault kv metadata get secret/x",
        "vault list auth/approle/role",
        "vault token lookup",
        "vault secrets list",
        "vault auth list",
        "vault policy list",
        "vault policy read default",
        "vault operator raft list-peers",
        "vault version",
        "consul members",
        "consul catalog services",
        "consul catalog nodes",
        "consul kv get config/x",
        "consul info",
        "consul operator raft list-peers",
        "consul acl token list",
        "nomad status",
        "nomad job status web",
        "nomad node status",
        "nomad alloc status abc",
        "nomad alloc logs -tail -n 50 abc",
        "nomad server members",
        "nomad version",
        "packer version",
        "packer validate x.pkr.hcl",
        "packer fmt -check .",
        "ansible --version",
        "ansible-doc -l",
        "ansible-config dump",
        "ansible-galaxy collection list",
        "ansible-vault encrypt_string secret",
        "ansible-vault decrypt --output - f.yml",
        "tailscale status",
        "tailscale status --json",
        "tailscale ip -4",
        "tailscale netcheck",
        "tailscale version",
        "tailscale ping host",
        "tailscale whois 100.64.0.1",
        "tailscale exit-node list",
        "cloudflared version",
        "cloudflared --version",
        "cloudflared tunnel list",
    ] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn writes() {
    for line in [
        "terraform apply",
        "terraform apply -auto-approve",
        "terraform destroy",
        "terraform plan",
        "terraform plan -out=tf.plan",
        "terraform init",
        "terraform import aws_instance.x i-1",
        "terraform taint x",
        "terraform state rm x",
        "terraform state mv a b",
        "terraform fmt",
        "terraform workspace select prod",
        "terraform providers lock",
        "terraform",
        "vault write secret/x a=b",
        "vault kv put secret/x a=b",
        "vault kv delete secret/x",
        "vault kv metadata delete secret/x",
        "vault delete secret/x",
        "vault operator seal",
        "vault operator unseal",
        "vault operator raft remove-peer n1",
        "vault login",
        "vault read database/creds/readonly",
        "vault token create",
        "vault secrets enable kv",
        "consul kv put a b",
        "consul kv delete a",
        "consul leave",
        "consul reload",
        "consul snapshot save s.snap",
        "consul acl token delete -id x",
        "consul services register s.json",
        "nomad job run web.nomad",
        "nomad job stop web",
        "nomad node drain -enable n1",
        "nomad system gc",
        "nomad alloc restart abc",
        "nomad var put a b=c",
        "packer build .",
        "packer init .",
        "packer fmt .",
        "ansible all -m ping",
        // Listing loads the inventory, whose scripts and plugins run.
        "ansible all --list-hosts",
        "ansible-playbook site.yml --list-tasks",
        "ansible-playbook --syntax-check site.yml",
        "ansible-inventory --list",
        "ansible-inventory -i hosts --graph",
        "ansible-inventory --host web1",
        "ansible all -m shell -a uptime",
        "ansible-playbook site.yml",
        "ansible-playbook --check site.yml",
        "ansible-playbook -i inventory.py --list-hosts site.yml",
        "ansible-inventory --list --output inv.json",
        "ansible-galaxy install role",
        "ansible-vault encrypt f.yml",
        "ansible-vault decrypt f.yml",
        "tailscale up",
        "tailscale down",
        "tailscale set --ssh",
        "tailscale logout",
        "tailscale cert host",
        "tailscale file cp f host:",
        "tailscale serve 3000",
        "cloudflared tunnel run",
        "cloudflared tunnel --url http://localhost:8080",
        "cloudflared service install",
    ] {
        assert!(is_write(line), "{line}");
    }
}

#[test]
fn interactive() {
    for line in [
        "terraform console",
        "vault monitor",
        "consul monitor",
        "consul watch -type=nodes",
        "nomad monitor",
        "nomad alloc logs -f abc",
        "packer console",
        "ansible-console",
        "ansible-vault view f.yml",
        "ansible-vault edit f.yml",
        "tailscale ssh host",
        "tailscale netcheck --every 5s",
    ] {
        assert!(is_interactive(line), "{line}");
    }
}

#[test]
fn dynamic_secrets_and_servers() {
    assert!(is_write("vault read gcp/roleset/my/key"));
    assert!(is_read("consul snapshot inspect s.snap"));
    assert!(is_write("consul snapshot save s.snap"));
    assert!(is_interactive("tailscale status --web"));
}
