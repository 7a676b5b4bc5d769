//! Flags and subcommands are an allowlist: an option, global option or
//! subcommand the table does not know is refused; so are options whose
//! value swallows the next word, wrappers' own options that write or run
//! programs, and options that write in otherwise read-only modes.

use super::{accepted, refused};

/// getopt_long takes any unambiguous prefix of a long option (`--foll` for
/// `--follow`), and so do the tables, for programs that parse options so.
/// An ambiguous prefix, one that may be an option the table does not list
/// (it ends where a word ends: `--in` of `--in-place`, `--config` of LVM's
/// `--configreport`), and any abbreviation to a pflag (Go) program are
/// unknown.
#[test]
fn long_option_abbreviations_are_read_as_getopt_long_reads_them() {
    refused(&[
        "find . --del",
        "sed --in-pl s/a/b/ f",
        "sed --in s/a/b/ f",
        "sort --out=/tmp/x f",
        "sort --outp /tmp/x f",
        "tee --app /tmp/x",
        "uniq --repe f /tmp/out",
        "docker logs --fol c",
        "journalctl --fol",
        "kubectl logs --foll pod",
        "tail --foll f",
        "git clean --dry",
        "lvs --config global{x}",
        "curl --trace /tmp/t https://x",
        "curl --trace-a /tmp/t https://x",
        "ls --al",
        "cat --numb f",
        "dmesg --foll",
        "journalctl --vac=1d",
        "journalctl --rot",
        "systemctl --no status",
        "tail --line=5 f",
        "wget --outp=/tmp/x https://x",
        "sort --rev f",
    ]);
    accepted(&[
        "sort --reverse f",
        "sed --quiet -n 1p f",
        "smartctl --all /dev/sda",
        "tail --lines=5 f",
        "smartctl --al /dev/sda",
        "sort --reve f",
        "tail --lin=5 f",
        "journalctl --no-pag -u nginx",
        "journalctl -u nginx --sin \"1 hour ago\"",
        "systemctl status --no-pag nginx",
        "du --max-d=1 /var",
        "df --hum",
        "free --hum",
        "wc --li f",
        "grep --ignore-c x f",
        "ldconfig --print-cach",
        "mktemp --dry-r",
        "git clean --dry-r",
    ]);
}

#[test]
fn values_that_swallow_the_next_word() {
    refused(&[
        "git clean -e -n -fd",
        "git clean --exclude -n -f",
        "rsync --exclude --dry-run -a --delete src/ dst/",
        "rsync -a --delete --exclude -n src/ dst/",
        "kubectl apply -f --dry-run=client",
        "kubectl delete pod x -l --dry-run=client",
        "helm upgrade x y --set --dry-run",
        "helm upgrade x y -f --dry-run",
        "helm uninstall x --description --dry-run",
        "ansible-playbook site.yml --tags --check",
        "ansible-playbook site.yml -t --check",
        "terraform plan -var --destroy",
        "apt-get -o -s install x",
        "sed -e --help f -i",
        "sort -o -c f",
    ]);
    accepted(&[
        "git clean -n -e build -fd",
        "git clean --exclude=x -n",
        "kubectl apply -f x.yaml --dry-run=client",
        "helm upgrade x y --set a=b --dry-run",
        "apt-get -s install x",
        "apt-get install --simulate nginx",
    ]);
}

#[test]
fn remote_shell_client_options() {
    refused(&[
        "ssh -E /tmp/log host uptime",
        "ssh -o LocalCommand=id -o PermitLocalCommand=yes host uptime",
        "ssh -oPermitLocalCommand=yes -oLocalCommand=id host uptime",
        "ssh -o UserKnownHostsFile=/tmp/k host uptime",
        "ssh -o 'UserKnownHostsFile /tmp/k' host uptime",
        "ssh -oProxyCommand=id host uptime",
        "ssh -o ProxyCommand='nc %h %p' host uptime",
        "ssh -F /tmp/cfg host uptime",
        "ssh -S /tmp/ctl -M host uptime",
        "ssh -o ControlMaster=yes -o ControlPath=/tmp/c host uptime",
        "ssh -L 8080:x:80 host uptime",
        "ssh -R 80:x:80 host uptime",
        "ssh -D 1080 host uptime",
        "ssh -w 0 host uptime",
        "ssh -o StrictHostKeyChecking=no host uptime",
        "ssh -o StrictHostKeyChecking=accept-new host uptime",
        "ssh -o KnownHostsCommand=id host uptime",
        "ssh -o Include=/tmp/x host uptime",
        "ssh -o LogLevel=DEBUG -E x host uptime",
        "ssh -y host uptime",
        "ssh host",
        "ssh -t host top",
        "rsync -an -e 'sh -c id' src/ host:dst/",
        "rsync -an --rsh=id src/ h:dst",
        "rsync -an --rsync-path=id src/ h:dst",
        "rsync -an --log-file=/tmp/x src/ dst/",
        "rsync -an --write-batch=/tmp/x src/ dst/",
        "scp host:/etc/hosts /tmp/",
    ]);
    accepted(&[
        "ssh host uptime",
        "ssh -p 2222 host uptime",
        "ssh -o ConnectTimeout=5 host 'df -h'",
        "ssh -o BatchMode=yes host uptime",
        "ssh root@pve1 'qm list'",
    ]);
}

#[test]
fn global_options_before_the_subcommand() {
    refused(&[
        "ceph -o /tmp/x status",
        "ceph --out-file=/tmp/x -s",
        "ceph -c /tmp/x -s",
        "ceph --conf /tmp/x health",
        "ceph --log-file=/tmp/x -s",
        "rbd --log-file=/tmp/x ls",
        "rados -c /tmp/x lspools",
        "virsh -l /tmp/x list",
        "virsh --log /tmp/x list",
        "podman --out /tmp/x ps",
        "podman --root /tmp/x ps",
        "podman --conmon /tmp/x ps",
        "podman --hooks-dir /tmp ps",
        "git --output=/tmp/x log",
        "git -c core.pager=id log",
        "git -c alias.x='!id' x",
        "git --exec-path=/tmp status",
        "kubectl --log-file=/tmp/x get pods",
        "kubectl --cache-dir=/tmp/x get pods",
        "kubectl --profile-output=/tmp/x --profile=cpu get pods",
        "docker --config /tmp/x ps",
        "helm --post-renderer id status x",
        "lvs --config 'log { file=\"/tmp/x\" }'",
        "apt-cache -o Dir::Cache::pkgcache=/tmp/x show bash",
        "yum --installroot=/tmp list",
        "zypper --root /tmp se x",
        "pip --log /tmp/x list",
        "pip list --log /tmp/x",
        "pip list --cache-dir /tmp/x",
        "npm ls --logs-dir /tmp/x",
        "npm ls --cache /tmp/x",
        "npm ls --userconfig /tmp/x",
        "lxc-ls -o /tmp/x",
        "btrfs --log=debug filesystem sync /",
        "KUBECONFIG=/tmp/x kubectl get pods",
        "kubectl --kubeconfig /tmp/x get pods",
        "kubectl --kubeconfig=./x get pods",
        "kubectl --kubeconfig /etc/../tmp/x get pods",
        "KUBECONFIG=/etc/kubernetes/admin.conf:/tmp/x kubectl get pods",
        "KUBECONFIG=$HOME/.kube/$X kubectl get pods",
        "journalctl --image x.img -n 5",
    ]);
    accepted(&[
        "ceph -s",
        "ceph --id admin status",
        "ceph -f json health detail",
        "rbd -p rbd ls -l",
        "rados -p data ls",
        "rados df",
        "virsh -c qemu:///system list --all",
        "git --no-pager log -n 5",
        "git -C /srv/app status",
        "kubectl -n kube-system get pods",
        "KUBECONFIG=/etc/kubernetes/admin.conf kubectl get nodes",
        "kubectl --kubeconfig /etc/rancher/k3s/k3s.yaml get pods -A",
        "KUBECONFIG=$HOME/.kube/config kubectl get pods",
        "lvs -a -o +devices",
        "pip list --outdated",
        "npm ls --depth=0",
    ]);
}

#[test]
fn read_only_modes_with_options_that_write_or_run() {
    refused(&[
        // Archive listers.
        "tar -tf a.tar --to-command=sh",
        "tar -tf a.tar --index-file=/tmp/x",
        "tar -t -f a.tar --rsh-command=/bin/sh",
        "tar tf host:a.tar",
        "tar -tvf a.tar -I 'sh -c id'",
        "tar --list --file=a.tar --use-compress-program=sh",
        "tar -tf a.tar --checkpoint-action=exec=id",
        "cpio -it -F host:a.cpio",
        "cpio -t --rsh-command=x < a.cpio",
        // Database clients.
        "psql -c 'select 1' -o /tmp/x",
        "psql -c 'select 1' --output=/tmp/x",
        "psql -c 'select 1' -L /tmp/x",
        "psql -c 'select 1' --log-file=/tmp/x",
        "psql -c '\\o /tmp/x'",
        "psql -c '\\! id'",
        "mysql -e 'select 1' --tee=/tmp/x",
        "mysql -e 'select 1' --plugin-dir=/tmp",
        "mysql -e 'select 1' --default-auth=x",
        "mysql -e 'system id'",
        "mysql -e '\\! id'",
        "mysql --init-command='drop table x' -e 'select 1'",
        "sqlite3 db '.shell id'",
        "sqlite3 db '.output /tmp/x'",
        "sqlite3 db '.load x'",
        "sqlite3 -cmd '.shell id' db 'select 1'",
        "sqlite3 db 'select 1' -init /tmp/x",
        // awk dialects.
        "awk -l ext 'BEGIN{}'",
        "gawk --load=ext 'BEGIN{}'",
        "gawk -i inplace '{print}' f",
        "gawk -E x.awk f",
        "gawk -o /tmp/x 'BEGIN{}'",
        "gawk --pretty-print=/tmp/x 'BEGIN{}'",
        "gawk -d/tmp/x 'BEGIN{}'",
        "awk '{print > \"/tmp/x\"}' f",
        "awk '{print | \"sh\"}' f",
        "awk '{system(\"id\")}' f",
        "awk 'BEGIN{\"id\" | getline}'",
        // Storage tools running scripts named by the environment.
        "zpool status -c smart",
        "zpool status -c /tmp/x",
        "zpool iostat -c x 1 1",
        "ZPOOL_SCRIPTS_PATH=/tmp zpool status",
        "ZPOOL_SCRIPTS_AS_ROOT=1 zpool status -c x",
        "env ZPOOL_SCRIPTS_PATH=/tmp zpool status -c x",
        // Other tools.
        "smartctl -l scttempint,1 /dev/sda",
        "smartctl -t long /dev/sda",
        "mdadm --detail /dev/md0 --fail /dev/sda",
        "hdparm -W0 /dev/sda",
        "dmsetup ls --exec id",
        "iscsiadm -m discovery -t st -p 10.0.0.1",
        "qemu-img check -r all x.qcow2",
        "qemu-img info nbd://host/x",
        "git ls-remote -u id x",
        "git ls-remote --upload-pack=id x",
        "git log -p --ext-diff",
        "git diff --textconv",
        "git grep -O x",
        "tshark -c 10 -o tls.debug_file:/tmp/x",
        "wget -qO- -i urls.txt",
        "nmap -oN /tmp/x host",
        "nmap --script vuln host",
        "rados -p data ls /tmp/objects",
        "rados -p data getomapval obj key /tmp/out",
        "pvesh get /nodes/pve/qemu/100/vncwebsocket --port 5900",
        "virsh 'list; destroy vm1'",
    ]);
    accepted(&[
        "tar -tf a.tar",
        "tar -tvzf a.tar.gz",
        "psql -c 'select count(*) from users'",
        "mysql -e 'show databases'",
        "sqlite3 -readonly db 'select * from t'",
        "awk '{print $1}' f",
        "zpool status -x",
        "zpool iostat -v 1 3",
        "smartctl -a /dev/sda",
        "smartctl -l error /dev/sda",
        "mdadm --detail /dev/md0",
        "iscsiadm -m session -P 3",
        "qemu-img info --output=json x.qcow2",
        "git ls-remote origin",
        "pvesh get /nodes/pve/qemu --output-format json",
    ]);
}

#[test]
fn unknown_subcommands_and_words() {
    refused(&[
        "qm set 100 --memory 1",
        "qm config 100 --delete x",
        "qm guest cmd 100 fsfreeze-freeze",
        "pct config 101 --foo",
        "pvesm status --bogus",
        "pvecm expected 1",
        "ha-manager crm-command migrate vm:100 x",
        "btrfs subvolume delete /x",
        "btrfs device stats -z /",
        "btrfs check --repair /dev/sda",
        "nvme format /dev/nvme0n1",
        "cryptsetup luksUUID --uuid x /dev/sda2",
        "losetup /dev/loop0 img",
        "etcdctl check perf",
        "snap logs -f x",
        "npm doctor",
        "npm audit fix",
        "iw dev wlan0 scan",
    ]);
    accepted(&[
        "qm config 100 --current",
        "btrfs fi sh",
        "btrfs filesystem usage -T /",
        "btrfs check --readonly /dev/sda",
        "nvme smart-log /dev/nvme0",
        "cryptsetup status root",
        "losetup -l",
        "snap logs -n=50 x",
        "iw dev wlan0 scan dump",
    ]);
}
