//! Who is calling and what they may do: users with argon2id passwords,
//! browser login sessions (cookie + CSRF token), bearer API tokens, the
//! four roles, and login throttling.

mod accounts;
mod caller;
mod passwords;
mod rate_limit;
mod role;
pub mod secrets;

pub use accounts::{
    AccountError, BootstrapAdmin, NewToken, TokenExpiry, add_user, bootstrap_admin, create_token,
    revoke_token, set_password,
};
pub use caller::{Caller, Credential, SESSION_COOKIE};
pub use passwords::{PasswordError, hash_password, verify_password};
pub use rate_limit::{LoginLimiter, Throttle};
pub use role::{Role, UnknownRole};
