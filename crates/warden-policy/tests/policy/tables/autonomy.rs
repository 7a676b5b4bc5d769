//! Autonomy has a ceiling: destructive writes are high_write whatever
//! their spelling, so even at the autonomous level a human approves them;
//! only low and medium writes run unattended.

use super::all;
use warden_policy::{Autonomy, Risk};

#[test]
fn destructive_writes_are_high_risk() {
    all(
        &[
            // recursive or mass deletion
            "rm -r /srv/app/cache",
            "rm -rf build",
            "rm --recursive old",
            "rm /var/log/*.gz",
            "rm -f $FILES",
            "rm a b c d e",
            "find . -name '*.log' -delete",
            "find /srv/www -exec rm {} \\;",
            "find /srv/www -execdir rm -f {} +",
            "find /srv/www -ok rm {} \\;",
            "find /srv/www -type f | xargs rm",
            "ls | xargs rm -f",
            // mass permission changes
            "chmod -R 755 /srv/www",
            "chmod -Rv g+w /srv/www",
            "chmod --recursive 755 /srv/www",
            "chown -R www-data:www-data /srv/www",
            "chgrp -R staff /srv/www",
            "setfacl -R -m u:bob:rwx /srv/www",
            // firewall flushes
            "iptables -F",
            "iptables --flush INPUT",
            "ip6tables -X",
            "nft flush ruleset",
            "nft delete table inet filter",
            "ufw reset",
            "ufw disable",
            // users and groups
            "useradd bob",
            "userdel -r bob",
            "usermod -aG sudo bob",
            "groupadd ops",
            "groupdel ops",
            "gpasswd -d bob ops",
            "passwd bob",
            "chpasswd",
            "adduser bob",
            "deluser bob",
            "chage -E 0 bob",
            // package removal
            "apt remove nginx",
            "apt-get -y purge nginx",
            "apt-get autoremove",
            "dnf remove nginx",
            "yum erase nginx",
            "apk del nginx",
            "pip uninstall requests",
            "pip3 uninstall -y requests",
            "dpkg -r nginx",
            "dpkg --purge nginx",
            "rpm -e nginx",
            "zypper rm nginx",
            "snap remove lxd",
            "helm uninstall web",
            // partitions, volumes, pools, Ceph
            "parted /dev/sdb rm 1",
            "wipefs -a /dev/sdb",
            "lvremove vg/lv",
            "vgremove vg",
            "pvremove /dev/sdb",
            "lvreduce -L 1G vg/lv",
            "zfs destroy tank/x",
            "zfs destroy -r tank/x",
            "zfs rollback tank/x@before",
            "zpool destroy tank",
            "ceph osd purge 3 --yes-i-really-mean-it",
            "ceph osd destroy 3",
            "ceph osd pool delete p p --yes-i-really-really-mean-it",
            "rbd rm pool/img",
            "pveceph osd destroy 3",
            "pveceph pool destroy p",
            "pveceph mon destroy pve1",
            // guests
            "qm destroy 100",
            "qm destroy 100 --purge",
            "pct destroy 101",
            "qm rollback 100 before",
            "pct delsnapshot 101 old",
            "pvesh delete /nodes/pve/qemu/100",
            "pvesm free local:100/vm-100-disk-0.qcow2",
            "virsh undefine web",
            "virsh vol-delete disk.qcow2 --pool default",
            "sudo userdel bob",
            "timeout 60 apt-get -y remove nginx",
            // a wrapper whose own options cannot be read hides what it runs
            "xargs --frob rm -rf /srv/data",
            "xargs -Q rm -rf /srv/data",
            "env --frob rm -rf /srv/data",
            "timeout --frob 5 rm -rf /srv/data",
            "nice --frob rm -rf /srv/data",
            "stdbuf --frob rm -rf /srv/data",
            "ionice --frob rm -rf /srv/data",
            "flock --frob /tmp/l rm -rf /srv/data",
            "ssh --frob host rm -rf /srv/data",
            "xargs $OPTS rm -rf /srv/data",
        ],
        "high_write, needing a human at autonomous (or refused: catastrophic)",
        |c| {
            c.risk == Risk::HighWrite
                && matches!(c.autonomy(), Autonomy::NeedsHuman | Autonomy::Refused)
        },
    );
}

#[test]
fn ordinary_writes_run_unattended() {
    all(
        &[
            "systemctl restart nginx",
            "systemctl reload nginx",
            "systemctl start nginx",
            "systemctl stop nginx",
            "sed -i s/a/b/ /etc/nginx/nginx.conf",
            "chmod 644 /etc/nginx/nginx.conf",
            "docker restart web",
            "qm start 100",
            "pct reboot 101",
            "apt-get install -y nginx",
            "touch /tmp/x",
            // one named file (or a few) deleted, as an edit
            "rm -f /tmp/warden-scratch",
            "rm /srv/app/old.conf /srv/app/old.conf.bak",
            "unlink /run/app.pid",
            "rmdir /srv/empty",
        ],
        "a low or medium write that runs unattended",
        |c| c.risk < Risk::HighWrite && c.autonomy() == Autonomy::Unattended,
    );
    all(
        &["df -h", "curl -s https://example.com/health"],
        "a read",
        |c| c.autonomy() == Autonomy::Read,
    );
}
