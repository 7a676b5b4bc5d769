//! wget and HTTPie (with xh). wget saves what it downloads, so it reads only
//! with `--spider` or with the document sent to standard output.

use super::{is_sink, variable_option};
use crate::commands::common::bad;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::{Risk, Verdict};

const WGET: Options = Options {
    short_flags: "rmpNckKxbqvdSFEHL46Vh",
    short_values: "OoaePiBtTwUQlARDXIn",
    long_values: &[
        "--output-document",
        "--output-file",
        "--append-output",
        "--execute",
        "--directory-prefix",
        "--input-file",
        "--base",
        "--tries",
        "--timeout",
        "--wait",
        "--user-agent",
        "--quota",
        "--level",
        "--accept",
        "--reject",
        "--domains",
        "--exclude-domains",
        "--exclude-directories",
        "--include-directories",
        "--post-data",
        "--post-file",
        "--method",
        "--body-data",
        "--body-file",
        "--header",
        "--user",
        "--password",
        "--http-user",
        "--http-password",
        "--proxy-user",
        "--proxy-password",
        "--ftp-user",
        "--ftp-password",
        "--referer",
        "--load-cookies",
        "--save-cookies",
        "--ca-certificate",
        "--ca-directory",
        "--certificate",
        "--certificate-type",
        "--private-key",
        "--private-key-type",
        "--secure-protocol",
        "--ciphers",
        "--bind-address",
        "--limit-rate",
        "--waitretry",
        "--dns-timeout",
        "--connect-timeout",
        "--read-timeout",
        "--max-redirect",
        "--config",
        "--rejected-log",
        "--warc-file",
        "--warc-header",
        "--warc-max-size",
        "--warc-tempdir",
        "--warc-dedup",
        "--hsts-file",
        "--use-askpass",
        "--progress",
        "--local-encoding",
        "--remote-encoding",
        "--restrict-file-names",
        "--prefer-family",
        "--default-page",
        "--cut-dirs",
        "--backups",
        "--start-pos",
        "--retry-on-http-error",
        "--report-speed",
        "--accept-regex",
        "--reject-regex",
        "--regex-type",
        "--crl-file",
        "--pinnedpubkey",
        "--random-file",
        "--egd-file",
        "--compression",
        "--follow-tags",
        "--ignore-tags",
        "--preferred-location",
        "--metalink-index",
    ],
    long_flags: &[
        "--spider",
        "--quiet",
        "--verbose",
        "--no-verbose",
        "--debug",
        "--server-response",
        "--no-check-certificate",
        "--check-certificate",
        "--continue",
        "--timestamping",
        "--no-clobber",
        "--recursive",
        "--mirror",
        "--page-requisites",
        "--convert-links",
        "--convert-file-only",
        "--backup-converted",
        "--no-parent",
        "--span-hosts",
        "--relative",
        "--force-directories",
        "--no-directories",
        "--no-host-directories",
        "--protocol-directories",
        "--adjust-extension",
        "--force-html",
        "--background",
        "--no-cache",
        "--no-cookies",
        "--keep-session-cookies",
        "--ignore-length",
        "--no-proxy",
        "--no-dns-cache",
        "--inet4-only",
        "--inet6-only",
        "--retry-connrefused",
        "--content-on-error",
        "--save-headers",
        "--delete-after",
        "--https-only",
        "--no-hsts",
        "--no-http-keep-alive",
        "--ask-password",
        "--show-progress",
        "--no-config",
        "--unlink",
        "--trust-server-names",
        "--xattr",
        "--content-disposition",
        "--auth-no-challenge",
        "--no-iri",
        "--iri",
        "--strict-comments",
        "--no-glob",
        "--passive-ftp",
        "--no-passive-ftp",
        "--preserve-permissions",
        "--retr-symlinks",
        "--no-remove-listing",
        "--help",
        "--version",
        "--no-netrc",
        "--ignore-case",
        "--input-metalink",
        "--keep-badhash",
        "--no-warc-compression",
        "--no-warc-digests",
        "--no-warc-keep-log",
    ],
    ..Options::GNU
};

/// wget options that write files (besides `-O`, `-o`, `-a` handled with their values).
const WGET_WRITES: &[&str] = &[
    "--directory-prefix",
    "--recursive",
    "--mirror",
    "--page-requisites",
    "--timestamping",
    "--continue",
    "--convert-links",
    "--convert-file-only",
    "--backup-converted",
    "--force-directories",
    "--save-cookies",
    "--warc-file",
    "--rejected-log",
    "--background",
    "--delete-after",
    "--hsts-file",
    "--backups",
    "--no-remove-listing",
];

pub(super) fn wget(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let mut spider = false;
    let mut document: Option<Option<&str>> = None;
    let mut urls: Vec<&str> = Vec::new();
    for tok in WGET.walk(inv.args) {
        let (name, value) = match tok {
            Tok::Operand { text, .. } => {
                urls.push(text);
                continue;
            }
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args[index].raw),
            Tok::Long { name, value, .. } => (name, value),
            Tok::Short { flag, value, .. } => {
                let long = match flag {
                    'O' => "--output-document",
                    'o' => "--output-file",
                    'a' => "--append-output",
                    'e' => "--execute",
                    'P' => "--directory-prefix",
                    'r' => "--recursive",
                    'm' => "--mirror",
                    'p' => "--page-requisites",
                    'N' => "--timestamping",
                    'c' => "--continue",
                    'k' => "--convert-links",
                    'K' => "--backup-converted",
                    'x' => "--force-directories",
                    'b' => "--background",
                    'i' => "--input-file",
                    // `-nv`, `-nd`, `-nH`, `-np`, `-nc`: only `-nc` matters, and it does not write.
                    'n' | 'B' | 't' | 'T' | 'w' | 'U' | 'Q' | 'l' | 'A' | 'R' | 'D' | 'X' | 'I'
                    | 'q' | 'v' | 'd' | 'S' | 'F' | 'E' | 'H' | 'L' | '4' | '6' | 'V' | 'h' => {
                        continue;
                    }
                    _ => return Verdict::unknown(format!("unknown option `-{flag}`")),
                };
                (long, value)
            }
        };
        match name {
            "--spider" => spider = true,
            "--output-document" => document = Some(value),
            "--output-file" | "--append-output" if !is_sink(value) => {
                return Verdict::write(Risk::LowWrite, format!("`{name}` writes a log file"));
            }
            "--input-file" => {
                return Verdict::unknown(
                    "`-i` fetches URLs from a file, which cannot be inspected",
                );
            }
            "--execute" | "--config" | "--use-askpass" | "--ask-password" => {
                return Verdict::unknown(format!("`{name}` runs commands or prompts"));
            }
            "--post-data" | "--post-file" | "--body-data" | "--body-file" => {
                return Verdict::write(Risk::MediumWrite, format!("`{name}` sends data"));
            }
            "--method" if !value.is_some_and(|m| ["GET", "HEAD"].contains(&m)) => {
                return Verdict::write(
                    Risk::MediumWrite,
                    "`--method` sends a method other than GET or HEAD",
                );
            }
            _ if WGET_WRITES.contains(&name) => {
                return Verdict::write(Risk::LowWrite, format!("`{name}` writes files"));
            }
            _ if WGET.long_flags.contains(&name) || WGET.long_values.contains(&name) => {}
            _ => return Verdict::unknown(format!("unknown option `{name}`")),
        }
    }
    if let Some(refusal) = urls
        .iter()
        .find_map(|u| super::urls::scheme_refusal(u, &["http", "https"]))
    {
        return refusal;
    }
    if urls.iter().any(|u| super::urls::streams(u))
        && !inv.has_short('T')
        && !inv.has_long("--timeout")
    {
        return super::urls::streaming();
    }
    match document {
        Some(target) if !is_sink(target) => {
            Verdict::write(Risk::LowWrite, "`-O` saves the download into a file")
        }
        Some(_) => Verdict::Read,
        None if spider => Verdict::Read,
        None if inv.has_word(&["-V", "--version", "-h", "--help"]) => Verdict::Read,
        None => Verdict::write(
            Risk::LowWrite,
            "downloads into a file; use `-qO-` or `--spider`",
        ),
    }
}

const HTTPIE: Options = Options {
    short_flags: "hbmfjqSFxIdc",
    short_values: "oaApPsv",
    long_values: &[
        "--output",
        "--session",
        "--session-read-only",
        "--auth",
        "--auth-type",
        "--print",
        "--history-print",
        "--pretty",
        "--style",
        "--format-options",
        "--verify",
        "--cert",
        "--cert-key",
        "--cert-key-pass",
        "--ssl",
        "--ciphers",
        "--timeout",
        "--max-redirects",
        "--max-headers",
        "--proxy",
        "--default-scheme",
        "--boundary",
        "--raw",
        "--response-charset",
        "--response-mime",
    ],
    long_flags: &[
        "--download",
        "--continue",
        "--form",
        "--multipart",
        "--json",
        "--offline",
        "--ignore-stdin",
        "--headers",
        "--body",
        "--meta",
        "--verbose",
        "--all",
        "--follow",
        "--check-status",
        "--stream",
        "--quiet",
        "--sorted",
        "--unsorted",
        "--path-as-is",
        "--chunked",
        "--compress",
        "--ignore-netrc",
        "--debug",
        "--traceback",
        "--version",
        "--help",
        "--manual",
        "--http2",
    ],
    ..Options::GNU
};

/// HTTPie: `http [METHOD] URL [ITEM…]`. Without a method it POSTs when it
/// has data, and it reads a body from standard input when that is not a
/// terminal, so a read needs GET/HEAD or `--ignore-stdin`.
pub(super) fn httpie(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let mut ignore_stdin = false;
    let mut positionals = Vec::with_capacity(inv.args.len());
    for tok in HTTPIE.walk(inv.args) {
        match tok {
            Tok::Operand { text, .. } => positionals.push(text),
            Tok::Short { flag: 'I', .. }
            | Tok::Long {
                name: "--ignore-stdin",
                ..
            } => {
                ignore_stdin = true;
            }
            Tok::Long {
                name: "--offline", ..
            } => return Verdict::Read,
            Tok::Long {
                name: "--version" | "--help",
                ..
            } => return Verdict::Read,
            Tok::Short { flag: 'd', .. }
            | Tok::Long {
                name: "--download", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`--download` saves the response");
            }
            Tok::Short { flag: 'c', .. }
            | Tok::Long {
                name: "--continue", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`--continue` writes a download");
            }
            Tok::Short {
                flag: 'o', value, ..
            }
            | Tok::Long {
                name: "--output",
                value,
                ..
            } if !is_sink(value) => {
                return Verdict::write(Risk::LowWrite, "`--output` writes a file");
            }
            Tok::Long {
                name: "--session", ..
            } => {
                return Verdict::write(Risk::LowWrite, "`--session` saves a session file");
            }
            Tok::Long { name: "--raw", .. } => {
                return Verdict::write(Risk::MediumWrite, "`--raw` sends a request body");
            }
            Tok::Short { flag, .. } if "oaApPsvhbmfjqSFxI".contains(flag) => {}
            Tok::Short { flag, .. } => {
                return Verdict::unknown(format!("unknown option `-{flag}`"));
            }
            Tok::Long { name, .. }
                if HTTPIE.long_flags.contains(&name) || HTTPIE.long_values.contains(&name) => {}
            Tok::Long { name, .. } => return Verdict::unknown(format!("unknown option `{name}`")),
            Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args[index].raw),
        }
    }
    if let Some(refusal) = positionals
        .iter()
        .find_map(|u| super::urls::scheme_refusal(u, &["http", "https"]))
    {
        return refusal;
    }
    let (method, items) = match positionals.as_slice() {
        [m, _url, items @ ..] if m.bytes().all(|b| b.is_ascii_alphabetic()) => (Some(*m), items),
        [_url, items @ ..] => (None, items),
        [] => return Verdict::unknown("no URL"),
    };
    if let Some(item) = items.iter().find(|i| sends_data(i)) {
        return Verdict::write(
            Risk::MediumWrite,
            format!("request item `{item}` sends data"),
        );
    }
    match method {
        Some(m) if m.eq_ignore_ascii_case("GET") || m.eq_ignore_ascii_case("HEAD") => Verdict::Read,
        Some(m) => Verdict::write(Risk::MediumWrite, format!("method `{m}` may change data")),
        None if ignore_stdin => Verdict::Read,
        None => {
            Verdict::unknown("without GET or `--ignore-stdin`, piped input becomes a POST body")
        }
    }
}

/// Is an HTTPie request item a body field (`a=b`, `a:=1`, `f@file`) or a
/// value read from a file (`H:@file`, `q==@file`) rather than a literal
/// header (`H:v`) or query parameter (`q==v`)?
fn sends_data(item: &str) -> bool {
    let bytes = item.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 1,
            // `H:@file` reads a header value from a file (HTTPie 3).
            b':' => return matches!(bytes.get(i + 1), Some(b'=' | b'@')),
            // `q==@file` reads a query value from a file.
            b'=' => {
                return bytes.get(i + 1) != Some(&b'=') || bytes.get(i + 2) == Some(&b'@');
            }
            b'@' => return true,
            _ => {}
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_read, is_write};

    #[test]
    fn wget() {
        for line in [
            "wget --spider https://localhost:8080/health",
            "wget -q --spider https://localhost:8080/health",
            "wget -qO- https://example.com",
            "wget -qO - https://example.com",
            "wget -O - https://example.com",
            "wget -O- -q https://example.com",
            "wget --output-document=- https://x",
            "wget -qO /dev/null https://x",
            "wget -S --spider https://x",
            "wget -nv --spider -T 5 -t 1 https://x",
            "wget -qO- --header=Accept:json https://x",
            "wget --version",
            "wget -q -O - --no-check-certificate https://x",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "wget http://example.com",
            "wget -q https://example.com/payload",
            "wget --spider -O /tmp/pulse-read-bypass https://example.com/payload",
            "wget --spider --post-data=payload https://example.com/hook",
            "wget -O file https://x",
            "wget -Ofile https://x",
            "wget -qOfile https://x",
            "wget --output-doc=f https://x",
            "wget -o log --spider https://x",
            "wget -a log -qO- https://x",
            "wget -P /tmp https://x",
            "wget -r --spider https://x",
            "wget -m https://x",
            "wget -N https://x",
            "wget -c https://x",
            "wget -e robots=off -qO- https://x",
            "wget --execute=x -qO- https://x",
            "wget --method=DELETE -qO- https://x",
            "wget --body-data=x -qO- https://x",
            "wget --config=f --spider https://x",
            "wget -b https://x",
            "wget --frob -qO- https://x",
            "wget --spi https://x",
            "wget --save-cookies c -qO- https://x",
        ] {
            assert!(is_write(line), "{line}");
        }
    }

    #[test]
    fn httpie() {
        for line in [
            "http GET https://api.example.com/health",
            "http get example.com",
            "http HEAD example.com",
            "http -I example.com",
            "http --ignore-stdin :8080/health",
            "http GET example.com Accept:application/json",
            "http GET example.com q==1 page==2",
            "https GET example.com -h",
            "http --offline POST example.com a=b",
            "http -b GET example.com",
            "xh get example.com",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "http example.com",
            "http POST example.com a=b",
            "http example.com a=b",
            "http PUT example.com",
            "http DELETE example.com/x",
            "http GET example.com a=b",
            "http -I example.com n:=1",
            "http -I example.com f@file.txt",
            "http --download GET example.com/f",
            "http -d GET example.com/f",
            "http -o out.json GET example.com",
            "http --session=s GET example.com",
            "http --raw x GET example.com",
        ] {
            assert!(is_write(line), "{line}");
        }
    }
}
