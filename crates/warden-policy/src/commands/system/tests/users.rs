//! Table tests for `users`.
use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::verdict::*;

#[test]
fn reads() {
    for line in [
        "id",
        "id -un",
        "groups bob",
        "whoami",
        "who",
        "who -b",
        "w",
        "users",
        "last -n 10",
        "lastb",
        "lastlog",
        "lastlog -u root",
        "faillog -a",
        "faillog -u bob",
        "faillock --user bob",
        "passwd -S",
        "passwd -S root",
        "passwd -Sa",
        "passwd --status bob",
        "chage -l root",
        "chage --list bob",
        "chsh -l",
        "pwck -r",
        "getent passwd root",
        "crontab -l",
        "crontab -u apache -l",
        "crontab -lu root",
        "atq",
        "at -l",
        "at -c 3",
        "visudo -c",
        "useradd -D",
        "useradd --help",
    ] {
        assert!(is_read(line), "{line}");
    }
}

#[test]
fn writes() {
    for line in [
        "useradd deploy",
        "useradd -D -b /srv",
        "usermod -aG docker alice",
        "userdel -r bob",
        "groupadd ops",
        "groupmod -n a b",
        "groupdel ops",
        "passwd root",
        "passwd",
        "passwd -l bob",
        "passwd -S -l bob",
        "chpasswd",
        "chage -M 90 bob",
        "chage -l -M 90 bob",
        "gpasswd -a bob sudo",
        "adduser bob",
        "deluser bob",
        "addgroup ops",
        "newusers users.txt",
        "chsh -s /bin/zsh",
        "chfn bob",
        "lastlog -C -u bob",
        "lastlog --clear --user bob",
        "faillog -r",
        "faillog -u bob -r",
        "faillock --user bob --reset",
        "pam_tally2 -r -u bob",
        "pwck",
        "crontab filename",
        "crontab -",
        "crontab",
        "crontab -r",
        "crontab -ri",
        "crontab -u bob -r",
        "at now + 1 minute",
        "batch",
        "atrm 3",
        "at -d 3",
        "sg docker ls",
    ] {
        assert!(is_write(line), "{line}");
    }
    assert!(matches!(
        rule_verdict("userdel bob"),
        Verdict::Write(Risk::HighWrite, _)
    ));
    for line in [
        "crontab -e",
        "crontab -u bob -e",
        "vipw",
        "vigr",
        "visudo",
        "newgrp docker",
    ] {
        assert!(is_interactive(line), "{line}");
    }
}
