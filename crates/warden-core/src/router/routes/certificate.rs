//! TLS certificate expiry of `host:port`: `openssl s_client` (bounded by
//! `timeout`, stdin closed) piped into `openssl x509 -enddate`, run on a
//! host Warden manages, so the answer (`render/certificate.rs`) is what
//! that host sees.

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::executor::commands::quote;
use crate::router::intent::Endpoint;
use crate::router::plan::{Call, Step, args};
use crate::router::render::certificate::{TIMEOUT_SECS, describe};
use crate::router::render::{Res, failure, named};

/// `openssl s_client` bounded by `timeout`, stdin closed, into `openssl x509`.
fn command(endpoint: &Endpoint) -> String {
    // SNI for names only: an IP address is not a valid server name.
    let sni = if endpoint.is_ip() {
        String::new()
    } else {
        format!(" -servername {}", quote(&endpoint.host))
    };
    format!(
        "timeout {TIMEOUT_SECS} openssl s_client -connect {}{sni} </dev/null 2>/dev/null | openssl x509 -noout -enddate -subject -issuer",
        quote(&endpoint.connect())
    )
}

pub fn certificate(
    runner: &Resource,
    endpoint: &Endpoint,
    now_unix: i64,
    step: usize,
    last: &[Value],
) -> Step {
    let name = endpoint.connect();
    match (step, last) {
        (0, _) => Step::Calls(vec![Call::new(
            "read",
            args("exec", runner, json!({"command": command(endpoint)})),
        )]),
        (_, [result, ..]) if Res(result).ran() => {
            let res = Res(result);
            if res.exit_code() == Some(127) || res.stderr().contains("openssl: not found") {
                return Step::Answer(format!(
                    "{} has no `openssl`, so I could not read the certificate of {name}.",
                    named(runner)
                ));
            }
            Step::Answer(describe(&name, runner, res.stdout(), now_unix))
        }
        (_, [result, ..]) => Step::Answer(failure(
            &format!("read the certificate of {name} from {}", named(runner)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(runner))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_bounded_reads() {
        for text in ["example.com", "10.0.0.5:8443", "[2001:db8::1]:443"] {
            let command = command(&Endpoint::parse(text).unwrap());
            let c = warden_policy::classify(&command);
            assert!(c.read_allowed(), "{command}: {}", c.reason);
        }
        assert!(!command(&Endpoint::parse("10.0.0.5").unwrap()).contains("-servername"));
    }
}
