//! The agent protocol (`shared/spec/agent.md`, version 1): what `warden
//! agent` and `warden serve` say to each other, shared by both sides.
//!
//! - [`frames`]: [`AgentFrame`], every WebSocket frame, and [`parse_frame`],
//!   which ignores frames of unknown type and rejects malformed known ones;
//! - [`grant`]: write [`Grant`]s: [`GrantClaims::sign`] for the server,
//!   [`Grant::verify_signature`] for the agent, [`command_sha256`];
//! - [`hello`]: the challenge signature ([`sign_hello`], [`verify_hello`]);
//! - [`codes`]: [`ExecErrorCode`] and [`GrantInvalidReason`];
//! - [`enrollment`]: the HTTP bodies for tokens and enrollment, paths, the
//!   4401 close code.
//!
//! Pure: no IO, no clock, no randomness (callers pass nonces and times in).

pub mod canonical;
pub mod codes;
mod encoding;
pub mod enrollment;
pub mod frames;
pub mod grant;
pub mod hello;
mod inventory_wire;
#[cfg(test)]
mod tests;

pub use canonical::canonical_json;
pub use codes::{ExecErrorCode, GrantInvalidReason};
pub use encoding::{decode_base64, decode_base64_array, encode_base64};
pub use enrollment::{
    AGENTS_PATH, AgentSummary, CLOSE_UNAUTHORIZED, CONNECT_PATH, ENROLL_PATH,
    ENROLLMENT_TOKENS_PATH, EnrollRequest, EnrollResponse, EnrollmentToken, EnrollmentTokenRequest,
    decode_public_key,
};
pub use frames::{
    AgentFrame, CancelRequest, Challenge, ExecClass, ExecFailure, ExecOutput, ExecRequest,
    ExecResult, FRAME_TYPES, FrameError, Heartbeat, Hello, InventoryReport, MAX_FRAME_BYTES,
    MetricSample, MetricsReport, OutputStream, ParsedFrame, SandboxReport, Welcome, parse_frame,
};
pub use grant::{
    GRANT_NONCE_BYTES, GRANT_VERSION, Grant, GrantClaims, MAX_GRANT_LIFETIME_MS,
    SignatureCheckError, command_sha256,
};
pub use hello::{
    CHALLENGE_NONCE_BYTES, HELLO_CONTEXT, decode_challenge_nonce, hello_signing_message,
    sign_hello, verify_hello,
};

/// The protocol version these types speak.
pub const PROTOCOL_VERSION: u32 = 1;
