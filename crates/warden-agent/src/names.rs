//! Agent names: the host part of every resource id the agent reports
//! (`host:{name}`, `lxc:{name}:141`), so they must fit there.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "agent name {0:?} must be 1 to 63 characters from letters, digits, `-`, `_` and `.`, \
     starting with a letter or digit"
)]
pub struct NameError(pub String);

/// `name` when it is a valid agent name.
pub fn check_agent_name(name: &str) -> Result<String, NameError> {
    let valid = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && name.as_bytes()[0].is_ascii_alphanumeric();
    if valid {
        Ok(name.to_string())
    } else {
        Err(NameError(name.to_string()))
    }
}

/// This machine's hostname as an agent name: the first label, with
/// characters an id cannot hold replaced by `-`.
pub fn default_agent_name() -> String {
    let raw = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .filter_map(|path| std::fs::read_to_string(path).ok())
        .map(|text| text.trim().to_string())
        .find(|name| !name.is_empty())
        .unwrap_or_default();
    let short = raw.split('.').next().unwrap_or(&raw);
    let cleaned: String = short
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(63)
        .collect();
    match check_agent_name(&cleaned) {
        Ok(name) => name,
        Err(_) => "localhost".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_fit_in_ids() {
        for ok in ["web1", "pve-node_2", "a", "db.lan"] {
            assert_eq!(check_agent_name(ok), Ok(ok.to_string()));
        }
        for bad in ["", "-x", "has space", "a:b", "é", &"x".repeat(64)] {
            assert!(check_agent_name(bad).is_err(), "{bad:?}");
        }
        assert!(check_agent_name(&default_agent_name()).is_ok());
    }
}
