//! People, not credentials: who is behind a cookie or a token, and how the
//! audit log spells them. A browser login is its user (`user:alice`); a
//! token acts for the person it belongs to, its owner (`user:alice` for a
//! token alice made; a token made offline belongs to `--owner`, by default
//! the local user running `warden token create`). A token from before
//! tokens had owners stands for itself (`token:NAME`).
//!
//! Actors in the audit log are spelled one way: `user:NAME`,
//! `token:NAME (user:OWNER)`, `agent:NAME`, `system`. So no user may be
//! called `system`, `warden`, `assistant` or `unknown` (names Warden itself
//! writes), and no name has a colon.

use std::fmt;

/// Names Warden writes as actors itself (`assistant` proposes tool calls,
/// `system` expires approvals and cancels turns at shutdown, `unknown`
/// stands for records from before actors were kept).
pub const RESERVED_NAMES: [&str; 4] = ["system", "warden", "assistant", "unknown"];

/// Why a user name is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameProblem {
    /// Not 1-64 letters, digits, `.`, `_` or `-`.
    Malformed,
    /// One of [`RESERVED_NAMES`] (in any case).
    Reserved,
}

/// Whether `name` can be a user's name. Pure.
pub fn check_user_name(name: &str) -> Result<(), NameProblem> {
    let well_formed = (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if !well_formed {
        return Err(NameProblem::Malformed);
    }
    if RESERVED_NAMES
        .iter()
        .any(|reserved| reserved.eq_ignore_ascii_case(name))
    {
        return Err(NameProblem::Reserved);
    }
    Ok(())
}

/// A person, as an actor: `user:alice`, or `token:NAME` for a token that
/// belongs to nobody known.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Person(String);

impl Person {
    /// The Warden (or local) user `name`.
    pub fn user(name: &str) -> Person {
        Person(format!("user:{name}"))
    }

    /// A token that belongs to nobody known stands for itself.
    pub fn token(name: &str) -> Person {
        Person(format!("token:{name}"))
    }

    /// A person as stored: an actor (`user:alice`, `token:ci`, `uid:1000`),
    /// or a bare user name, as rows written before actors were spelled one
    /// way hold them (`alice` is `user:alice`).
    pub fn from_stored(text: &str) -> Person {
        if text.contains(':') {
            Person(text.to_string())
        } else {
            Person::user(text)
        }
    }

    /// An `--owner` given on the command line: `alice` or `user:alice`.
    pub fn parse_owner(text: &str) -> Result<Person, NameProblem> {
        let name = text.strip_prefix("user:").unwrap_or(text);
        check_user_name(name)?;
        Ok(Person::user(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Person {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// How the audit log names a token: `token:NAME (user:OWNER)`, or
/// `token:NAME` for one without an owner.
pub fn token_actor(name: &str, owner: Option<&Person>) -> String {
    match owner {
        Some(owner) => format!("token:{name} ({owner})"),
        None => format!("token:{name}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_names() {
        let table = [
            ("alice", Ok(())),
            ("a.b_c-1", Ok(())),
            ("", Err(NameProblem::Malformed)),
            ("user:alice", Err(NameProblem::Malformed)),
            ("a b", Err(NameProblem::Malformed)),
            ("ålice", Err(NameProblem::Malformed)),
            (&*"x".repeat(65), Err(NameProblem::Malformed)),
            ("system", Err(NameProblem::Reserved)),
            ("System", Err(NameProblem::Reserved)),
            ("WARDEN", Err(NameProblem::Reserved)),
            ("assistant", Err(NameProblem::Reserved)),
            ("unknown", Err(NameProblem::Reserved)),
            ("systems", Ok(())),
        ];
        for (name, expected) in table {
            assert_eq!(check_user_name(name), expected, "{name}");
        }
    }

    #[test]
    fn people_are_spelled_one_way() {
        let table = [
            ("alice", "user:alice"),
            ("user:alice", "user:alice"),
            ("token:ci", "token:ci"),
            ("uid:1000", "uid:1000"),
        ];
        for (stored, person) in table {
            assert_eq!(Person::from_stored(stored).as_str(), person, "{stored}");
        }
        assert_eq!(Person::parse_owner("alice"), Ok(Person::user("alice")));
        assert_eq!(Person::parse_owner("user:alice"), Ok(Person::user("alice")));
        assert_eq!(Person::parse_owner("system"), Err(NameProblem::Reserved));
        assert_eq!(Person::parse_owner("token:x"), Err(NameProblem::Malformed));
        assert_eq!(
            token_actor("ci", Some(&Person::user("alice"))),
            "token:ci (user:alice)"
        );
        assert_eq!(token_actor("ci", None), "token:ci");
    }
}
