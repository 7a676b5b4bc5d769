//! `warden agent enroll`: generate (or reuse) this host's key, present it
//! with a one-time token at `POST /api/agents/enroll`, and store what the
//! server answers (spec/agent.md "Identity and enrollment").

use std::path::PathBuf;
use std::time::Duration;

use warden_protocol::agent::{ENROLL_PATH, EnrollRequest, EnrollResponse, encode_base64};

use crate::agent::AGENT_VERSION;
use crate::identity::{Identity, IdentityError, StateDir};
use crate::names::{NameError, check_agent_name};
use crate::server_url::{ServerUrl, ServerUrlError};
use crate::tls::{ServerTrust, TlsError, client_config};

/// What `enroll` needs.
#[derive(Debug, Clone)]
pub struct EnrollOptions {
    pub server: String,
    pub token: String,
    pub trust: ServerTrust,
    pub name: String,
    pub state_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum EnrollError {
    #[error(transparent)]
    ServerUrl(#[from] ServerUrlError),
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error(transparent)]
    Identity(#[from] IdentityError),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(
        "already enrolled as {agent_id} with {server} ({}); remove the state directory to enroll again",
        path.display()
    )]
    AlreadyEnrolled {
        agent_id: String,
        server: String,
        path: PathBuf,
    },
    #[error(
        "the server's certificate does not match the pinned fingerprint (--fingerprint): it presented SHA256 {presented}. If the server's certificate was renewed, pin the new one: --fingerprint {presented}"
    )]
    FingerprintMismatch { presented: String },
    #[error(
        "the server's certificate is not trusted ({reason}): it presented SHA256 {presented}. If that is your Warden server's certificate (`warden serve` prints its fingerprint at start), pin it with --fingerprint {presented}, or give its CA with --ca-file"
    )]
    Untrusted { presented: String, reason: String },
    #[error("cannot reach {server}: {message}")]
    Transport { server: String, message: String },
    #[error("the name {name:?} is already enrolled under another key (409): {message}")]
    NameTaken { name: String, message: String },
    #[error("the server refused the enrollment token ({status}): {message}")]
    TokenRefused { status: u16, message: String },
    #[error("the server answered {status}: {message}")]
    Server { status: u16, message: String },
    #[error("the server's answer is not an enrollment response: {0}")]
    BadResponse(String),
}

/// Enrolls this host and stores its identity; returns it.
pub async fn enroll(options: EnrollOptions) -> Result<Identity, EnrollError> {
    let server = ServerUrl::parse(&options.server)?;
    let name = check_agent_name(&options.name)?;
    let (tls, presented) = client_config(&options.trust, &server)?;
    let state = StateDir::open(&options.state_dir)?;
    if let Some(existing) = state.find_identity()? {
        return Err(EnrollError::AlreadyEnrolled {
            agent_id: existing.agent_id,
            server: existing.server_url,
            path: state.path().to_path_buf(),
        });
    }
    let key = state.load_or_create_key()?;
    let public_key = encode_base64(key.verifying_key().as_bytes());
    let request = EnrollRequest {
        token: options.token.clone(),
        name: name.clone(),
        public_key: public_key.clone(),
        version: AGENT_VERSION.to_string(),
        os: std::env::consts::OS.to_string(),
        arch: std::env::consts::ARCH.to_string(),
    };
    let client = reqwest::Client::builder()
        .use_preconfigured_tls((*tls).clone())
        .no_proxy()
        .connect_timeout(Duration::from_secs(15))
        .timeout(Duration::from_secs(60))
        .build()
        .map_err(|err| EnrollError::Transport {
            server: server.to_string(),
            message: err.to_string(),
        })?;
    let response = client
        .post(server.endpoint(ENROLL_PATH))
        .json(&request)
        .send()
        .await
        .map_err(|err| match (presented.mismatch(), presented.untrusted()) {
            (Some(mismatch), _) => EnrollError::FingerprintMismatch {
                presented: mismatch.presented.to_string(),
            },
            (None, Some(untrusted)) => EnrollError::Untrusted {
                presented: untrusted.presented.to_string(),
                reason: untrusted.reason,
            },
            (None, None) => EnrollError::Transport {
                server: server.to_string(),
                message: error_chain(&err),
            },
        })?;
    let status = response.status().as_u16();
    let body = response.text().await.unwrap_or_default();
    match status {
        200 | 201 => {}
        409 => {
            return Err(EnrollError::NameTaken {
                name,
                message: error_message(&body),
            });
        }
        400 | 401 | 403 | 404 | 410 => {
            return Err(EnrollError::TokenRefused {
                status,
                message: error_message(&body),
            });
        }
        _ => {
            return Err(EnrollError::Server {
                status,
                message: error_message(&body),
            });
        }
    }
    let answer: EnrollResponse =
        serde_json::from_str(&body).map_err(|err| EnrollError::BadResponse(err.to_string()))?;
    if answer.server_key().is_none() {
        return Err(EnrollError::BadResponse(
            "server_public_key is not a base64 Ed25519 public key".into(),
        ));
    }
    if answer.agent_id.is_empty() {
        return Err(EnrollError::BadResponse("agent_id is empty".into()));
    }
    let identity = Identity {
        agent_id: answer.agent_id,
        name,
        server_url: server.to_string(),
        server_public_key: answer.server_public_key,
        public_key,
        trust: options.trust,
        enrolled_at: jiff::Timestamp::now().to_string(),
    };
    state.save_identity(&identity)?;
    tracing::info!(agent_id = %identity.agent_id, "enrolled with {server}");
    Ok(identity)
}

/// `error.message` from an api.md error body, else the body itself (short).
fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.chars().take(300).collect())
}

/// An error with its causes, `: `-separated (reqwest hides the TLS reason
/// in the chain).
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
