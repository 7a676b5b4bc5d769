//! Live sessions (DESIGN invariant 7: session truth is in memory): each
//! holds its turn runner (FSM/ResolvedContext, conversation) and event
//! stream. Messages go to the store after every turn; a stored session
//! whose process is gone comes back with its history and a fresh state.

mod approvals;
pub mod events;
pub mod installation;
mod session;
mod sink;
mod turn;

pub use approvals::ApprovalWaiters;
pub use installation::InstallationEvents;
pub use session::Sessions;
pub use turn::start_turn;
