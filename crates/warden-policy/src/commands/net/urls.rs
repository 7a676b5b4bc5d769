//! URLs given to fetch tools: which protocols they speak, and whether the
//! request streams. A "read" over a protocol other than http, https or file
//! talks to services that act on what they receive (gopher and dict send
//! raw bytes to any TCP port, smtp sends mail, ldap modifies); an API path
//! that watches or follows streams until interrupted.

use crate::verdict::{InteractiveCategory, Verdict};

/// curl's guesses for a URL without a scheme: a host starting with these
/// speaks that protocol.
const GUESSED: &[&str] = &[
    "ftp.", "dict.", "ldap.", "imap.", "smtp.", "pop3.", "gopher.",
];

/// The verdict for a URL whose protocol is not one of `allowed`.
pub(crate) fn scheme_refusal(url: &str, allowed: &[&str]) -> Option<Verdict> {
    let url = url.trim();
    let scheme = match url.split_once("://") {
        Some((scheme, _)) => scheme.to_ascii_lowercase(),
        None => {
            let host = url.split(['/', ':', '?']).next().unwrap_or_default();
            let host = host.rsplit('@').next().unwrap_or(host).to_ascii_lowercase();
            match GUESSED.iter().find(|g| host.starts_with(*g)) {
                Some(guess) => guess.trim_end_matches('.').to_string(),
                None => return None,
            }
        }
    };
    (!allowed.contains(&scheme.as_str())).then(|| {
        Verdict::unknown(format!(
            "a `{scheme}` URL talks to a service that can act on what it receives"
        ))
    })
}

/// Does a request to this URL stream until interrupted? Kubernetes
/// `watch`, log `follow`, Docker `events` and `stats`, etcd `wait`.
pub(crate) fn streams(url: &str) -> bool {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let path = path.trim_end_matches('/');
    let param_on = |name: &str| {
        query.split('&').any(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, "true"));
            k.eq_ignore_ascii_case(name) && !matches!(v, "false" | "0" | "False" | "FALSE")
        })
    };
    let param_off = |name: &str| {
        query.split('&').any(|kv| {
            kv.split_once('=')
                .is_some_and(|(k, v)| k.eq_ignore_ascii_case(name) && matches!(v, "false" | "0"))
        })
    };
    param_on("watch")
        || param_on("follow")
        || param_on("wait")
        || path.contains("/watch/")
        || path.ends_with("/attach")
        || (path.ends_with("/events") && !param_on("until") && !param_on("since"))
        || (path.ends_with("/stats") && !param_off("stream"))
}

/// The verdict for a streaming request.
pub(crate) fn streaming() -> Verdict {
    Verdict::interactive(
        InteractiveCategory::UnboundedStream,
        "the request watches or follows until interrupted",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes() {
        let web = &["http", "https", "file"];
        for ok in [
            "http://x",
            "HTTPS://x/y",
            "localhost:8080/health",
            "example.com",
            "file:///etc/hosts",
        ] {
            assert!(scheme_refusal(ok, web).is_none(), "{ok}");
        }
        for bad in [
            "gopher://localhost:6379/_FLUSHALL",
            "dict://localhost:11211/stats",
            "telnet://x",
            "ftp://x/y",
            "ftp.example.com",
            "smtp://mail",
            "ldap://x",
            "scp://x/y",
            "tftp://x/y",
            "mqtt://x/t",
        ] {
            assert!(scheme_refusal(bad, web).is_some(), "{bad}");
        }
    }

    #[test]
    fn streaming_paths() {
        for s in [
            "/api/v1/pods?watch=true",
            "http://localhost:8001/api/v1/namespaces/x/pods?watch=1",
            "/api/v1/watch/pods",
            "http://localhost/containers/x/logs?follow=1&stdout=1",
            "http://localhost/events",
            "http://localhost/containers/abc/stats",
            "http://127.0.0.1:2379/v2/keys/x?wait=true",
        ] {
            assert!(streams(s), "{s}");
        }
        for s in [
            "/api/v1/pods",
            "/api/v1/pods?watch=false",
            "http://localhost/containers/json",
            "http://localhost/containers/abc/stats?stream=false",
            "http://localhost/events?until=1700000000",
            "/healthz",
        ] {
            assert!(!streams(s), "{s}");
        }
    }
}
