//! The environment a command runs in, rebuilt from nothing: the agent's own
//! environment (and whatever systemd or a shell put in it) never leaks into
//! commands, and tools stay non-interactive with plain output.

use warden_infra::local_exec::FIXED_PATH;

const FIXED_VARIABLES: [(&str, &str); 10] = [
    ("PATH", FIXED_PATH),
    ("LANG", "C.UTF-8"),
    ("LC_ALL", "C.UTF-8"),
    ("TERM", "dumb"),
    ("NO_COLOR", "1"),
    ("PAGER", "cat"),
    ("SYSTEMD_PAGER", "cat"),
    ("SYSTEMD_COLORS", "0"),
    ("GIT_PAGER", "cat"),
    ("DEBIAN_FRONTEND", "noninteractive"),
];

/// The variables every command gets: the fixed ones and `HOME` (the agent
/// user's home from the password database, `/` when it has none).
pub fn command_environment() -> Vec<(String, String)> {
    let uid = rustix::process::getuid().as_raw();
    let home = std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|passwd| home_from_passwd(&passwd, uid))
        .unwrap_or_else(|| "/".to_string());
    FIXED_VARIABLES
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(std::iter::once(("HOME".to_string(), home)))
        .collect()
}

/// The home field of `uid`'s line in `/etc/passwd` text.
fn home_from_passwd(passwd: &str, uid: u32) -> Option<String> {
    passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        match fields.as_slice() {
            [_, _, id, _, _, home, ..] if id.parse() == Ok(uid) && !home.is_empty() => {
                Some((*home).to_string())
            }
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_is_fixed_plus_home() {
        let env = command_environment();
        let names: Vec<&str> = env.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names.first(), Some(&"PATH"));
        assert_eq!(names.last(), Some(&"HOME"));
        assert_eq!(env.len(), 11);
        assert!(env.contains(&("LANG".to_string(), "C.UTF-8".to_string())));
    }

    #[test]
    fn home_by_uid() {
        let passwd =
            "root:x:0:0:root:/root:/bin/bash\nbob:x:1000:1000::/home/bob:/bin/sh\nx:x:5:5:::\n";
        assert_eq!(home_from_passwd(passwd, 0).as_deref(), Some("/root"));
        assert_eq!(home_from_passwd(passwd, 1000).as_deref(), Some("/home/bob"));
        assert_eq!(home_from_passwd(passwd, 5), None);
        assert_eq!(home_from_passwd(passwd, 7), None);
    }
}
