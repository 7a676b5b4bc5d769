//! Roles, each including the ones before it: viewer < operator < approver < admin.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Reads inventory, sessions, audit, approvals, usage, metrics.
    Viewer,
    /// Creates sessions, posts messages, cancels turns.
    Operator,
    /// Approves, denies and runs approvals.
    Approver,
    /// Users, tokens, agents, settings.
    Admin,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown role `{0}`: expected viewer, operator, approver or admin")]
pub struct UnknownRole(pub String);

impl Role {
    pub const ALL: [Role; 4] = [Role::Viewer, Role::Operator, Role::Approver, Role::Admin];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Operator => "operator",
            Role::Approver => "approver",
            Role::Admin => "admin",
        }
    }

    /// Whether this role includes `required`.
    pub fn allows(self, required: Role) -> bool {
        self >= required
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = UnknownRole;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Role::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| UnknownRole(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_includes_the_ones_before_it() {
        use Role::*;
        let table = [
            (Viewer, [true, false, false, false]),
            (Operator, [true, true, false, false]),
            (Approver, [true, true, true, false]),
            (Admin, [true, true, true, true]),
        ];
        for (role, expected) in table {
            for (required, allowed) in Role::ALL.into_iter().zip(expected) {
                assert_eq!(role.allows(required), allowed, "{role} needs {required}");
            }
        }
    }

    #[test]
    fn roles_parse_and_print() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert!("root".parse::<Role>().is_err());
        assert!("Admin".parse::<Role>().is_err());
    }
}
