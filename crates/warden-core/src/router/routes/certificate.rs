//! TLS certificate expiry of `host:port`: `openssl s_client` (bounded by
//! `timeout`, stdin closed) piped into `openssl x509 -enddate`, run on a
//! host Warden manages, so the answer is what that host sees.

use serde_json::{Value, json};
use warden_protocol::Resource;

use crate::executor::commands::quote;
use crate::router::plan::{Call, Step, args};
use crate::router::render::{Res, block, clip_lines, named};

const TIMEOUT_SECS: u32 = 5;

/// Where a TLS server listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}

impl Endpoint {
    /// "example.com", "example.com:8443", "https://example.com/",
    /// "[2001:db8::1]:443", "10.0.0.5:443". Port 443 by default.
    pub fn parse(text: &str) -> Option<Endpoint> {
        let text = text.trim().trim_end_matches('/');
        let text = text
            .strip_prefix("https://")
            .or_else(|| text.strip_prefix("tls://"))
            .unwrap_or(text);
        let (host, port) = if let Some(rest) = text.strip_prefix('[') {
            let (host, after) = rest.split_once(']')?;
            let port = match after.strip_prefix(':') {
                Some(p) => p.parse().ok()?,
                None if after.is_empty() => 443,
                None => return None,
            };
            (host.to_string(), port)
        } else {
            match text.rsplit_once(':') {
                Some((host, port)) => (host.to_string(), port.parse().ok()?),
                None => (text.to_string(), 443),
            }
        };
        let ipv6 = host.contains(':');
        let valid = !host.is_empty()
            && port > 0
            && host.chars().all(|c| {
                c.is_ascii_alphanumeric() || c == '-' || c == '.' || (ipv6 && c == ':')
            })
            // A name, not a bare word: "the" or "nginx" is not an endpoint.
            && (host.contains('.') || ipv6 || host == "localhost");
        valid.then(|| Endpoint {
            host: host.to_lowercase(),
            port,
        })
    }

    fn is_ip(&self) -> bool {
        self.host.contains(':') || self.host.parse::<std::net::Ipv4Addr>().is_ok()
    }

    fn connect(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    pub fn command(&self) -> String {
        // SNI for names only: an IP address is not a valid server name.
        let sni = if self.is_ip() {
            String::new()
        } else {
            format!(" -servername {}", quote(&self.host))
        };
        format!(
            "timeout {TIMEOUT_SECS} openssl s_client -connect {}{sni} </dev/null 2>/dev/null | openssl x509 -noout -enddate -subject -issuer",
            quote(&self.connect())
        )
    }
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
            args("exec", runner, json!({"command": endpoint.command()})),
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
        (_, [result, ..]) => Step::Answer(crate::router::render::failure(
            &format!("read the certificate of {name} from {}", named(runner)),
            Res(result),
        )),
        (_, []) => Step::Answer(format!("Nothing came back from {}.", named(runner))),
    }
}

fn describe(name: &str, runner: &Resource, stdout: &str, now_unix: i64) -> String {
    let field = |key: &str| {
        stdout
            .lines()
            .find_map(|l| l.trim().strip_prefix(key))
            .map(str::trim)
    };
    let Some(not_after) = field("notAfter=") else {
        return format!(
            "No certificate came back from {name} (checked from {}): the connection failed within {TIMEOUT_SECS} s, the name does not resolve, or it does not speak TLS.{}",
            named(runner),
            if stdout.trim().is_empty() {
                String::new()
            } else {
                format!("\n{}", block(&clip_lines(stdout, 6)))
            }
        );
    };
    let mut text = match parse_openssl_date(not_after) {
        Some(expiry) => {
            let days = (expiry - now_unix).div_euclid(86_400);
            let when = if expiry <= now_unix {
                format!("EXPIRED {} day(s) ago", (now_unix - expiry) / 86_400)
            } else if days < 1 {
                "expires in less than a day".to_string()
            } else {
                format!("expires in {days} day{}", if days == 1 { "" } else { "s" })
            };
            format!("The certificate of {name} {when}: valid until {not_after}.")
        }
        None => format!("The certificate of {name} is valid until {not_after}."),
    };
    if let Some(subject) = field("subject=") {
        text.push_str(&format!("\n  subject: {subject}"));
    }
    if let Some(issuer) = field("issuer=") {
        text.push_str(&format!("\n  issuer:  {issuer}"));
    }
    text.push_str(&format!("\n  (as seen from {})", named(runner)));
    text
}

/// "Jan  1 00:00:00 2027 GMT" → Unix seconds.
fn parse_openssl_date(text: &str) -> Option<i64> {
    let f: Vec<&str> = text.split_whitespace().collect();
    let [month, day, time, year, "GMT"] = f.as_slice() else {
        return None;
    };
    let month = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|m| m == month)? as i64
        + 1;
    let day: i64 = day.parse().ok()?;
    let year: i64 = year.parse().ok()?;
    let mut hms = time.split(':').map(|p| p.parse::<i64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    Some(days_from_civil(year, month, day) * 86_400 + h * 3600 + m * 60 + s)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        let e = |h: &str, p: u16| {
            Some(Endpoint {
                host: h.into(),
                port: p,
            })
        };
        assert_eq!(Endpoint::parse("example.com"), e("example.com", 443));
        assert_eq!(Endpoint::parse("Example.com:8443"), e("example.com", 8443));
        assert_eq!(
            Endpoint::parse("https://example.com/"),
            e("example.com", 443)
        );
        assert_eq!(Endpoint::parse("10.0.0.5:443"), e("10.0.0.5", 443));
        assert_eq!(Endpoint::parse("[2001:db8::1]:993"), e("2001:db8::1", 993));
        assert_eq!(Endpoint::parse("localhost:8443"), e("localhost", 8443));
        for bad in [
            "nginx",
            "the",
            "example.com:0",
            "example.com:http",
            "a;b.com",
            "$(x).com",
            "",
        ] {
            assert_eq!(Endpoint::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn commands_are_bounded_reads() {
        for text in ["example.com", "10.0.0.5:8443", "[2001:db8::1]:443"] {
            let command = Endpoint::parse(text).unwrap().command();
            let c = warden_policy::classify(&command);
            assert!(c.read_allowed(), "{command}: {}", c.reason);
        }
        assert!(
            !Endpoint::parse("10.0.0.5")
                .unwrap()
                .command()
                .contains("-servername")
        );
    }

    #[test]
    fn dates() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(
            parse_openssl_date("Nov 23 10:30:00 2026 GMT"),
            Some(1_795_429_800)
        );
        assert_eq!(parse_openssl_date("Nov 23 2026"), None);
    }

    #[test]
    fn answers() {
        let runner = Resource::new(
            warden_protocol::ResourceId::global(warden_protocol::ResourceKind::Host, "web1"),
            "web1",
        );
        let now = 1_795_429_800; // 2026-11-23T10:30:00Z
        let out = "notAfter=Jan  2 10:30:00 2027 GMT\nsubject=CN=example.com\nissuer=C=US, O=Let's Encrypt, CN=R11\n";
        let text = describe("example.com:443", &runner, out, now);
        assert!(
            text.starts_with("The certificate of example.com:443 expires in 40 days"),
            "{text}"
        );
        assert!(text.contains("issuer:  C=US, O=Let's Encrypt"), "{text}");
        let expired = describe(
            "old.example:443",
            &runner,
            "notAfter=Nov 20 10:30:00 2026 GMT\n",
            now,
        );
        assert!(expired.contains("EXPIRED 3 day(s) ago"), "{expired}");
        let nothing = describe("down.example:443", &runner, "", now);
        assert!(
            nothing.starts_with("No certificate came back from down.example:443"),
            "{nothing}"
        );
    }
}
