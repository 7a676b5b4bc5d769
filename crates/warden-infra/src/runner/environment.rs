//! The environment a command runs in. Warden's own environment (API keys,
//! the operator's shell settings, `LD_PRELOAD`, pagers) must not leak into
//! commands, and commands must behave the same whoever started Warden: so
//! the environment is rebuilt from scratch, with settings that keep tools
//! non-interactive and their output plain.

use std::path::Path;

/// The fixed search path: the usual system directories, nothing from the
/// caller's `PATH` (which could put a look-alike `ls` first).
pub const FIXED_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// Variables every command gets, apart from `HOME`.
const FIXED_VARIABLES: [(&str, &str); 10] = [
    ("PATH", FIXED_PATH),
    ("LANG", "C.UTF-8"),
    ("LC_ALL", "C.UTF-8"),
    // No colours, no pagers, no terminal tricks: output goes to a pipe and
    // then to a model.
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
    ("PAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
    ("SYSTEMD_COLORS", "0"),
    ("GIT_PAGER", "cat"),
    // Tools that honour it (apt, debconf) must never wait for an answer.
    ("DEBIAN_FRONTEND", "noninteractive"),
];

/// The environment for one command: the fixed variables, `HOME`, then the
/// variables the caller passes through from Warden's own environment (by
/// name, only when set), then the caller's explicit values. Later entries
/// win, so a caller can deliberately override a fixed value.
pub fn command_environment(
    home: &str,
    pass_through: &[String],
    explicit: &[(String, String)],
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = FIXED_VARIABLES
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    env.push(("HOME".into(), home.into()));
    for name in pass_through {
        if let Some(value) = std::env::var_os(name) {
            env.push((name.clone(), value.to_string_lossy().into_owned()));
        }
    }
    env.extend(explicit.iter().cloned());
    env
}

/// The current user's home directory from the password database, else `/root`
/// (Warden usually runs as root; `$HOME` of the caller is deliberately not
/// trusted, it belongs to the environment we are cleaning).
pub fn current_user_home() -> String {
    let uid = rustix::process::getuid().as_raw();
    std::fs::read_to_string(Path::new("/etc/passwd"))
        .ok()
        .and_then(|passwd| home_from_passwd(&passwd, uid))
        .unwrap_or_else(|| "/root".to_string())
}

/// The home field of `uid`'s line in an `/etc/passwd` text
/// (`name:password:uid:gid:gecos:home:shell`).
pub(crate) fn home_from_passwd(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            [_, _, line_uid, _, _, home, ..] if line_uid.parse() == Ok(uid) && !home.is_empty() => {
                Some((*home).to_string())
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
        daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n\
        # a comment line\n\
        broken\n\
        alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\n\
        nohome:x:1001:1001:::/bin/sh\n";

    #[test]
    fn home_is_looked_up_by_uid() {
        assert_eq!(home_from_passwd(PASSWD, 0).as_deref(), Some("/root"));
        assert_eq!(
            home_from_passwd(PASSWD, 1000).as_deref(),
            Some("/home/alice")
        );
        assert_eq!(home_from_passwd(PASSWD, 1001), None);
        assert_eq!(home_from_passwd(PASSWD, 4242), None);
    }

    #[test]
    fn explicit_values_come_last_and_win() {
        let env = command_environment("/root", &[], &[("KUBECONFIG".into(), "/etc/k.yaml".into())]);
        let get = |k: &str| {
            env.iter()
                .rev()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("PATH"), Some(FIXED_PATH));
        assert_eq!(get("HOME"), Some("/root"));
        assert_eq!(get("PAGER"), Some("cat"));
        assert_eq!(get("KUBECONFIG"), Some("/etc/k.yaml"));
        assert_eq!(env.last().map(|(k, _)| k.as_str()), Some("KUBECONFIG"));
    }

    #[test]
    fn unset_pass_through_names_are_skipped() {
        let env = command_environment("/root", &["WARDEN_TEST_SURELY_UNSET_VARIABLE".into()], &[]);
        assert!(
            env.iter()
                .all(|(k, _)| k != "WARDEN_TEST_SURELY_UNSET_VARIABLE")
        );
    }
}
