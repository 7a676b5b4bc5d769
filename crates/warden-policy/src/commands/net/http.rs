//! curl. Read-only means a GET or HEAD request whose response goes to
//! standard output, with every option known.

use super::{is_sink, variable_option};
use crate::invocation::{Invocation, is_short_cluster};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// curl short options that take a value.
const CURL_SHORT_VALUE: &str = "AbcCdDeEFHKmoPQrtTuUwxXyYz";
/// curl short options without a value that cannot write.
const CURL_SHORT_SAFE: &str = "aBfgGhiIjklLMnNpqRsSvVZ0123456#:";

/// Long options that send a request body or change remote files.
const CURL_SENDS: &[&str] = &[
    "--data",
    "--data-ascii",
    "--data-binary",
    "--data-raw",
    "--data-urlencode",
    "--json",
    "--form",
    "--form-string",
    "--form-escape",
    "--upload-file",
    "--quote",
    "--mail-from",
    "--mail-rcpt",
    "--mail-auth",
    "--request",
    "--ftp-create-dirs",
    "--append",
];
/// Long options that write the file they name, unless it is standard output.
const CURL_WRITES_VALUE: &[&str] = &[
    "--output",
    "--dump-header",
    "--cookie-jar",
    "--trace",
    "--trace-ascii",
    "--stderr",
    "--libcurl",
    "--etag-save",
];
/// Long options that always write files.
const CURL_WRITES: &[&str] = &[
    "--remote-name",
    "--remote-name-all",
    "--remote-header-name",
    "--output-dir",
    "--create-dirs",
    "--hsts",
    "--alt-svc",
    "--ssl-sessions",
];
/// Long options that read more options from somewhere we cannot see.
const CURL_OPAQUE: &[&str] = &["--config", "--write-out", "--engine"];

/// Read-only long options that take a value.
const CURL_SAFE_VALUE: &[&str] = &[
    "--abstract-unix-socket",
    "--aws-sigv4",
    "--cacert",
    "--capath",
    "--cert",
    "--cert-type",
    "--ciphers",
    "--connect-timeout",
    "--connect-to",
    "--continue-at",
    "--cookie",
    "--crlfile",
    "--curves",
    "--delegation",
    "--dns-interface",
    "--dns-ipv4-addr",
    "--dns-ipv6-addr",
    "--dns-servers",
    "--doh-url",
    "--ech",
    "--egd-file",
    "--etag-compare",
    "--expect100-timeout",
    "--ftp-account",
    "--ftp-alternative-to-user",
    "--ftp-method",
    "--ftp-port",
    "--ftp-ssl-ccc-mode",
    "--happy-eyeballs-timeout-ms",
    "--header",
    "--hostpubmd5",
    "--hostpubsha256",
    "--interface",
    "--ip-tos",
    "--ipfs-gateway",
    "--keepalive-cnt",
    "--keepalive-time",
    "--key",
    "--key-type",
    "--krb",
    "--limit-rate",
    "--local-port",
    "--login-options",
    "--max-filesize",
    "--max-redirs",
    "--max-time",
    "--netrc-file",
    "--noproxy",
    "--oauth2-bearer",
    "--parallel-max",
    "--pass",
    "--pinnedpubkey",
    "--preproxy",
    "--proto",
    "--proto-redir",
    "--proxy",
    "--proxy-cacert",
    "--proxy-capath",
    "--proxy-cert",
    "--proxy-cert-type",
    "--proxy-ciphers",
    "--proxy-crlfile",
    "--proxy-header",
    "--proxy-key",
    "--proxy-key-type",
    "--proxy-pass",
    "--proxy-pinnedpubkey",
    "--proxy-service-name",
    "--proxy-tls13-ciphers",
    "--proxy-tlsauthtype",
    "--proxy-tlspassword",
    "--proxy-tlsuser",
    "--proxy-user",
    "--proxy1.0",
    "--pubkey",
    "--random-file",
    "--range",
    "--rate",
    "--referer",
    "--request-target",
    "--resolve",
    "--retry",
    "--retry-delay",
    "--retry-max-time",
    "--sasl-authzid",
    "--service-name",
    "--socks4",
    "--socks4a",
    "--socks5",
    "--socks5-gssapi-service",
    "--socks5-hostname",
    "--speed-limit",
    "--speed-time",
    "--telnet-option",
    "--tftp-blksize",
    "--time-cond",
    "--tls-max",
    "--tls13-ciphers",
    "--tlsauthtype",
    "--tlspassword",
    "--tlsuser",
    "--trace-config",
    "--unix-socket",
    "--url",
    "--url-query",
    "--user",
    "--user-agent",
    "--variable",
    "--vlan-priority",
];
/// Read-only long options without a value.
const CURL_SAFE_FLAG: &[&str] = &[
    "--anyauth",
    "--basic",
    "--ca-native",
    "--cert-status",
    "--compressed",
    "--compressed-ssh",
    "--digest",
    "--disable",
    "--disable-eprt",
    "--disable-epsv",
    "--disallow-username-in-url",
    "--doh-cert-status",
    "--doh-insecure",
    "--fail",
    "--fail-early",
    "--fail-with-body",
    "--false-start",
    "--ftp-pasv",
    "--ftp-pret",
    "--ftp-skip-pasv-ip",
    "--ftp-ssl-ccc",
    "--ftp-ssl-control",
    "--get",
    "--globoff",
    "--haproxy-protocol",
    "--head",
    "--help",
    "--http0.9",
    "--http1.0",
    "--http1.1",
    "--http2",
    "--http2-prior-knowledge",
    "--http3",
    "--http3-only",
    "--ignore-content-length",
    "--include",
    "--insecure",
    "--ipv4",
    "--ipv6",
    "--junk-session-cookies",
    "--list-only",
    "--location",
    "--location-trusted",
    "--manual",
    "--mptcp",
    "--negotiate",
    "--netrc",
    "--netrc-optional",
    "--next",
    "--no-alpn",
    "--no-buffer",
    "--no-clobber",
    "--no-keepalive",
    "--no-npn",
    "--no-progress-meter",
    "--no-sessionid",
    "--ntlm",
    "--ntlm-wb",
    "--parallel",
    "--parallel-immediate",
    "--path-as-is",
    "--progress-bar",
    "--proxy-anyauth",
    "--proxy-basic",
    "--proxy-ca-native",
    "--proxy-digest",
    "--proxy-http2",
    "--proxy-insecure",
    "--proxy-negotiate",
    "--proxy-ntlm",
    "--proxy-ssl-allow-beast",
    "--proxy-ssl-auto-client-cert",
    "--proxytunnel",
    "--raw",
    "--remote-time",
    "--remove-on-error",
    "--retry-all-errors",
    "--retry-connrefused",
    "--sasl-ir",
    "--show-error",
    "--show-headers",
    "--silent",
    "--skip-existing",
    "--socks5-basic",
    "--socks5-gssapi",
    "--socks5-gssapi-nec",
    "--ssl",
    "--ssl-allow-beast",
    "--ssl-auto-client-cert",
    "--ssl-no-revoke",
    "--ssl-reqd",
    "--ssl-revoke-best-effort",
    "--sslv2",
    "--sslv3",
    "--styled-output",
    "--suppress-connect-headers",
    "--tcp-fastopen",
    "--tcp-nodelay",
    "--tftp-no-options",
    "--tlsv1",
    "--tlsv1.0",
    "--tlsv1.1",
    "--tlsv1.2",
    "--tlsv1.3",
    "--tr-encoding",
    "--trace-ids",
    "--trace-time",
    "--use-ascii",
    "--verbose",
    "--version",
    "--xattr",
];

const READ_METHODS: &[&str] = &["GET", "HEAD"];

pub(super) fn curl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let args = inv.args;
    let mut data = false;
    let mut get = false;
    let mut i = 0;
    let mut urls = Vec::new();
    while let Some(arg) = args.get(i) {
        let text = arg.as_str();
        let next = args.get(i + 1).map(|a| a.as_str());
        i += 1;
        if text == "--" {
            urls.extend(args[i..].iter().map(|a| a.as_str()));
            break;
        }
        if let Some(body) = text.strip_prefix("--") {
            let (head, inline) = match body.split_once('=') {
                Some((h, v)) => (h, Some(v)),
                None => (body, None),
            };
            // curl 8.3+: `--expand-data` is `--data` with variables expanded.
            let head = head.strip_prefix("expand-").unwrap_or(head);
            let name = format!("--{head}");
            let name = name.as_str();
            let takes_value = CURL_SAFE_VALUE.contains(&name)
                || CURL_SENDS.contains(&name) && !matches!(name, "--ftp-create-dirs" | "--append")
                || CURL_WRITES_VALUE.contains(&name)
                || CURL_OPAQUE.contains(&name)
                || matches!(
                    name,
                    "--output-dir" | "--hsts" | "--alt-svc" | "--ssl-sessions"
                );
            let value = if takes_value && inline.is_none() {
                i += 1;
                next
            } else {
                inline
            };
            if name == "--url" {
                urls.extend(value);
            }
            match curl_long(name, value) {
                Some(CurlEffect::Data) => data = true,
                Some(CurlEffect::Get) => get = true,
                Some(CurlEffect::Verdict(v)) => return v,
                None => {}
            }
            continue;
        }
        if !is_short_cluster(text) {
            urls.push(text);
            continue;
        }
        for (pos, c) in text[1..].char_indices() {
            let rest = &text[1 + pos + c.len_utf8()..];
            if CURL_SHORT_VALUE.contains(c) {
                let value = if rest.is_empty() {
                    i += 1;
                    next
                } else {
                    Some(rest)
                };
                let long = match c {
                    'd' => "--data",
                    'F' => "--form",
                    'T' => "--upload-file",
                    'Q' => "--quote",
                    'X' => "--request",
                    'o' => "--output",
                    'D' => "--dump-header",
                    'c' => "--cookie-jar",
                    'K' => "--config",
                    'w' => "--write-out",
                    'H' => "--header",
                    _ => "",
                };
                match curl_long(long, value) {
                    Some(CurlEffect::Data) => data = true,
                    Some(CurlEffect::Get) => get = true,
                    Some(CurlEffect::Verdict(v)) => return v,
                    None => {}
                }
                break;
            }
            match c {
                'O' | 'J' => {
                    return Verdict::write(
                        Risk::LowWrite,
                        format!("`-{c}` saves the response into a file"),
                    );
                }
                'G' => get = true,
                'n' => {
                    return Verdict::write(
                        Risk::MediumWrite,
                        "`-n` sends credentials from ~/.netrc",
                    );
                }
                _ if CURL_SHORT_SAFE.contains(c) => {}
                _ => return Verdict::unknown(format!("unknown option `-{c}`")),
            }
        }
    }
    if data && !get {
        return Verdict::write(Risk::MediumWrite, "sends data (a POST request)");
    }
    let bounded = inv.args.iter().any(|a| {
        let t = a.as_str();
        t == "-m"
            || t == "--max-time"
            || t.starts_with("--max-time=")
            || (t.starts_with("-m") && t.len() > 2 && !t.starts_with("--"))
    });
    if !bounded && urls.iter().any(|u| super::urls::streams(u)) {
        return super::urls::streaming();
    }
    for url in &urls {
        let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        if lower.starts_with("telnet:") {
            return Verdict::interactive_writer(
                InteractiveCategory::InteractiveRepl,
                "a telnet URL sends standard input",
            );
        }
        if lower.starts_with("mqtt") && !data {
            return Verdict::interactive(
                InteractiveCategory::UnboundedStream,
                "an MQTT URL subscribes until interrupted",
            );
        }
    }
    // `[1-100000]` in a URL is a range curl expands into that many requests.
    let globoff = inv.has_short('g') || inv.has_long("--globoff");
    if !globoff && urls.iter().any(|u| has_url_range(u)) {
        return Verdict::unknown("a `[…]` range in the URL can expand into many requests");
    }
    if let Some(refusal) = urls
        .iter()
        .find_map(|u| super::urls::scheme_refusal(u, &["http", "https", "file"]))
    {
        return refusal;
    }
    Verdict::Read
}

/// A `[…]` glob range in a URL; an IPv6 host (`http://[::1]:80/`) is not one.
fn has_url_range(url: &str) -> bool {
    let rest = match url.split_once("://") {
        Some((_, rest)) if rest.starts_with('[') => rest.split_once(']').map_or("", |(_, r)| r),
        Some((_, rest)) => rest,
        None => url,
    };
    rest.contains('[')
}

enum CurlEffect {
    /// Sends a body: a write unless `-G` turns it into a query.
    Data,
    Get,
    Verdict(Verdict),
}

/// `--data-urlencode` and `--url-query` read a file for `@FILE` and
/// `NAME@FILE` (an `=` before the `@` makes it content).
fn names_file(value: &str) -> bool {
    let value = value.strip_prefix('+').unwrap_or(value);
    value
        .find(['=', '@'])
        .is_some_and(|at| value[at..].starts_with('@'))
}

/// An option that sends a local file (or standard input): a write, with
/// `-G` too, since the file then travels in the query.
fn sends_file(name: &str, value: Option<&str>) -> Option<CurlEffect> {
    Some(CurlEffect::Verdict(Verdict::write(
        Risk::MediumWrite,
        format!(
            "`{name} {}` sends a local file or standard input, which carries data away",
            value.unwrap_or_default()
        ),
    )))
}

/// The effect of one long option (short ones are mapped to their long name).
fn curl_long(name: &str, value: Option<&str>) -> Option<CurlEffect> {
    let write = |risk, reason: String| Some(CurlEffect::Verdict(Verdict::write(risk, reason)));
    match name {
        "" | "--head" => None,
        "--get" => Some(CurlEffect::Get),
        "--data" | "--data-ascii" | "--data-binary"
            if value.is_some_and(|v| v.starts_with('@')) =>
        {
            sends_file(name, value)
        }
        "--data-urlencode" | "--url-query" if value.is_some_and(names_file) => {
            sends_file(name, value)
        }
        "--data" | "--data-ascii" | "--data-binary" | "--data-raw" | "--data-urlencode" => {
            Some(CurlEffect::Data)
        }
        "--url" if value.is_some_and(|v| v.starts_with('@')) => sends_file(name, value),
        // Credentials from a netrc (its `default` entry goes to any host).
        // A cookie file is scoped to the domains its cookies name.
        "--netrc" | "--netrc-optional" | "--netrc-file" => write(
            Risk::MediumWrite,
            format!("`{name}` sends credentials from a netrc file"),
        ),
        "--variable" if value.is_some_and(|v| v.starts_with('%') || names_file(v)) => write(
            Risk::MediumWrite,
            "`--variable` reads a file or an environment variable into the request".into(),
        ),
        "--request" => match value {
            Some(m) if READ_METHODS.contains(&m) => None,
            _ => write(
                Risk::MediumWrite,
                "`-X` sends a method other than GET or HEAD".into(),
            ),
        },
        "--write-out" => match value {
            Some(v) if v.contains("%output{") => {
                write(Risk::LowWrite, "`%output{}` in `-w` writes a file".into())
            }
            Some(v) if v.starts_with('@') => Some(CurlEffect::Verdict(Verdict::unknown(
                "`-w @FILE` reads a format that can write files",
            ))),
            _ => None,
        },
        "--config" => Some(CurlEffect::Verdict(Verdict::unknown(
            "`-K` reads options from a file",
        ))),
        // Servers that honour these headers take the request as that method.
        "--header" | "--proxy-header"
            if value.is_some_and(|h| {
                let h = h.to_ascii_lowercase();
                h.contains("method-override") || h.contains("x-http-method")
            }) =>
        {
            write(
                Risk::MediumWrite,
                "a method-override header sends another method".into(),
            )
        }
        "--header" if value.is_some_and(|h| h.starts_with('@')) => Some(CurlEffect::Verdict(
            Verdict::unknown("`-H @FILE` reads headers that cannot be inspected"),
        )),
        "--engine" => Some(CurlEffect::Verdict(Verdict::unknown(
            "`--engine` loads a crypto engine library",
        ))),
        _ if CURL_SENDS.contains(&name) => write(
            Risk::MediumWrite,
            format!("`{name}` sends data or changes remote files"),
        ),
        _ if CURL_WRITES_VALUE.contains(&name) => {
            if is_sink(value) {
                None
            } else {
                write(Risk::LowWrite, format!("`{name}` writes a file"))
            }
        }
        _ if CURL_WRITES.contains(&name) => write(Risk::LowWrite, format!("`{name}` writes files")),
        _ if CURL_SAFE_VALUE.contains(&name) || CURL_SAFE_FLAG.contains(&name) => None,
        // `--no-compressed` and the like switch a read-only flag off.
        _ if name
            .strip_prefix("--no-")
            .is_some_and(|flag| CURL_SAFE_FLAG.iter().any(|f| f[2..] == *flag)) =>
        {
            None
        }
        // A prefix of a writing option may be taken for it.
        _ if CURL_SENDS
            .iter()
            .chain(CURL_WRITES_VALUE)
            .chain(CURL_WRITES)
            .chain(CURL_OPAQUE)
            .any(|w| w.starts_with(name)) =>
        {
            write(
                Risk::MediumWrite,
                format!("`{name}` may abbreviate an option that writes"),
            )
        }
        _ => Some(CurlEffect::Verdict(Verdict::unknown(format!(
            "unknown option `{name}`"
        )))),
    }
}

#[cfg(test)]
mod tests;
