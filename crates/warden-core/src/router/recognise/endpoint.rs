//! A TLS endpoint named in a request (`example.com`, `example.com:8443`,
//! `https://example.com/`, `[2001:db8::1]:443`).

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

    /// An IPv4 or IPv6 address rather than a name.
    pub fn is_ip(&self) -> bool {
        self.host.contains(':') || self.host.parse::<std::net::Ipv4Addr>().is_ok()
    }

    /// `host:port` as a client connects to it (an IPv6 address in brackets).
    pub fn connect(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
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
}
