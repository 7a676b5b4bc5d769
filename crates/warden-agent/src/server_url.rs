//! The server's base URL and the endpoints derived from it. Plain `http`
//! (and `ws`) is allowed only to a loopback address: anywhere else the
//! enrollment token and the connection would travel in clear.

use std::net::IpAddr;

use reqwest::Url;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerUrlError {
    #[error("`{url}` is not a URL: {message}")]
    Parse { url: String, message: String },
    #[error("`{url}`: the scheme must be https (or http to a loopback address)")]
    Scheme { url: String },
    #[error("`{url}`: plain http is allowed only to a loopback address; use https")]
    PlainHttpNotLoopback { url: String },
    #[error("`{url}` has no host")]
    NoHost { url: String },
    #[error("`{url}`: a server URL takes no query, fragment or credentials")]
    Extras { url: String },
}

/// A checked server base URL (`https://warden.example:8443`, maybe with a
/// path prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerUrl {
    base: Url,
}

impl ServerUrl {
    pub fn parse(text: &str) -> Result<Self, ServerUrlError> {
        let url = Url::parse(text.trim()).map_err(|err| ServerUrlError::Parse {
            url: text.to_string(),
            message: err.to_string(),
        })?;
        if url.query().is_some()
            || url.fragment().is_some()
            || !url.username().is_empty()
            || url.password().is_some()
        {
            return Err(ServerUrlError::Extras {
                url: text.to_string(),
            });
        }
        if url.host().is_none() {
            return Err(ServerUrlError::NoHost {
                url: text.to_string(),
            });
        }
        let server = ServerUrl { base: url };
        match server.base.scheme() {
            "https" => Ok(server),
            "http" if server.is_loopback() => Ok(server),
            "http" => Err(ServerUrlError::PlainHttpNotLoopback {
                url: text.to_string(),
            }),
            _ => Err(ServerUrlError::Scheme {
                url: text.to_string(),
            }),
        }
    }

    /// Whether the host is `localhost` or a loopback address.
    pub fn is_loopback(&self) -> bool {
        let host = self.host();
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback(),
            Err(_) => host.eq_ignore_ascii_case("localhost"),
        }
    }

    pub fn uses_tls(&self) -> bool {
        self.base.scheme() == "https"
    }

    /// The host as the TLS layer names it (no brackets around IPv6).
    pub fn host(&self) -> String {
        let host = self.base.host_str().unwrap_or_default();
        host.strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host)
            .to_string()
    }

    pub fn port(&self) -> u16 {
        self.base
            .port_or_known_default()
            .unwrap_or(if self.uses_tls() { 443 } else { 80 })
    }

    /// `https://host/prefix` + `path`.
    pub fn endpoint(&self, path: &str) -> Url {
        let mut url = self.base.clone();
        let joined = format!("{}{}", self.base.path().trim_end_matches('/'), path);
        url.set_path(&joined);
        url
    }

    /// The WebSocket URL for `path` (`wss://…`, or `ws://…` on loopback http).
    pub fn websocket(&self, path: &str) -> String {
        let url = self.endpoint(path).to_string();
        match url.split_once("://") {
            Some(("https", rest)) => format!("wss://{rest}"),
            Some((_, rest)) => format!("ws://{rest}"),
            None => url,
        }
    }

    pub fn as_str(&self) -> &str {
        self.base.as_str()
    }
}

impl std::fmt::Display for ServerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.base.as_str().trim_end_matches('/'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_keep_a_path_prefix() {
        let url = ServerUrl::parse("https://w.example:8443/warden/").unwrap();
        assert_eq!(
            url.endpoint("/api/agents/enroll").as_str(),
            "https://w.example:8443/warden/api/agents/enroll"
        );
        assert_eq!(
            url.websocket("/api/agents/connect"),
            "wss://w.example:8443/warden/api/agents/connect"
        );
        assert_eq!(url.port(), 8443);
        assert_eq!(url.to_string(), "https://w.example:8443/warden");
        let plain = ServerUrl::parse("http://127.0.0.1:9000").unwrap();
        assert_eq!(
            plain.websocket("/api/agents/connect"),
            "ws://127.0.0.1:9000/api/agents/connect"
        );
        assert!(!plain.uses_tls());
    }

    #[test]
    fn plain_http_only_on_loopback() {
        for ok in [
            "http://127.0.0.1:1",
            "http://127.9.9.9",
            "http://localhost:8080",
            "http://[::1]:80",
            "https://example.com",
        ] {
            assert!(ServerUrl::parse(ok).is_ok(), "{ok}");
        }
        for (bad, expected) in [
            (
                "http://10.0.0.1",
                ServerUrlError::PlainHttpNotLoopback {
                    url: "http://10.0.0.1".into(),
                },
            ),
            (
                "ftp://x",
                ServerUrlError::Scheme {
                    url: "ftp://x".into(),
                },
            ),
            (
                "https://u:p@x",
                ServerUrlError::Extras {
                    url: "https://u:p@x".into(),
                },
            ),
            (
                "https://x/?a=1",
                ServerUrlError::Extras {
                    url: "https://x/?a=1".into(),
                },
            ),
        ] {
            assert_eq!(ServerUrl::parse(bad), Err(expected), "{bad}");
        }
        assert!(matches!(
            ServerUrl::parse("not a url"),
            Err(ServerUrlError::Parse { .. })
        ));
    }

    #[test]
    fn loopback_detection() {
        assert!(ServerUrl::parse("https://[::1]").unwrap().is_loopback());
        assert!(ServerUrl::parse("https://LOCALHOST").unwrap().is_loopback());
        assert!(
            !ServerUrl::parse("https://localhost.evil.com")
                .unwrap()
                .is_loopback()
        );
        assert!(!ServerUrl::parse("https://128.0.0.1").unwrap().is_loopback());
        assert_eq!(ServerUrl::parse("https://[::1]:9").unwrap().host(), "::1");
    }
}
