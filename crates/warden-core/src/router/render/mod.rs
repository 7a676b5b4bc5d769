//! Stage 4, rendering: tool results → the answer's text. Everything an
//! answer says comes from a result (or says that there is none).
//!
//! - `result`: [`Res`], a tool result as answers read it; a failed or
//!   refused call in words.
//! - `format`: byte sizes, clipped and indented output, UTC times, names.
//! - `metrics`: a host's or container's metrics.
//! - `status`: a service, a container, the services and containers of a host.
//! - `units`: `systemctl show` blocks, and a unit's state in a line.
//! - `logs`: the last lines of a log; a container's log in time order.
//! - `log_window`: "since" for log files, by the times their lines carry.
//! - `errors`: the errors in a window, from the journal or a log file.
//! - `exit`: why a container or a unit exited.
//! - `facts`: top processes, listening ports, sessions, kernel, failed
//!   units; `updates`: pending package updates.
//! - `certificate`: a TLS certificate's expiry.
//! - `guests`: a Proxmox guest's status, inventory lists, history,
//!   snapshots; `snapshot_list` reads a snapshot list in either shape.
//! - `explain`: answers that need no tool (help, the command policy's
//!   verdict, what matched nothing), and the host answers of a dry run.

pub(super) mod certificate;
pub(super) mod errors;
pub(super) mod exit;
pub mod explain;
pub(super) mod facts;
mod format;
pub(super) mod guests;
pub(super) mod log_window;
pub(super) mod logs;
pub(super) mod metrics;
mod result;
pub(super) mod snapshot_list;
pub(super) mod status;
pub(super) mod units;
mod updates;

pub use format::{block, bytes, capitalised, clip_lines, named, utc_parts, utc_time};
pub use result::{Res, failure, not_done};
