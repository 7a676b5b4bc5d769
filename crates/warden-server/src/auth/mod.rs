//! Who is calling and what they may do: users with argon2id passwords,
//! browser login sessions (cookie + CSRF token), bearer API tokens that
//! belong to a person, the four roles (checked before a request's body is
//! read), and login throttling.

mod accounts;
mod caller;
mod passwords;
mod people;
mod rate_limit;
mod require;
mod role;
pub mod secrets;

pub use accounts::{
    ADMIN_PASSWORD_FILE, AccountError, BootstrapAdmin, FIRST_ADMIN, NewToken, TokenExpiry,
    TokenRequest, add_user, adopt_admin_password_file, bootstrap_admin, create_token,
    remove_admin_password_file, revoke_token, set_password,
};
pub use caller::{Caller, Credential, SESSION_COOKIE};
pub use passwords::{PasswordError, hash_password, verify_password};
pub use people::{NameProblem, Person, RESERVED_NAMES, check_user_name, token_actor};
pub use rate_limit::{Limit, Lockout, LockoutScope, LoginLimiter, Throttle, delay_after};
pub use require::{Authorized, RoleNeeded, needs};
pub use role::{Role, UnknownRole};
