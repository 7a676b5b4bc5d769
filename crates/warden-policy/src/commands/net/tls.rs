//! openssl, ssh-keygen and sshpass.

use super::variable_option;
use crate::commands::common::bad;
use crate::invocation::Invocation;
use crate::options::{Options, Tok};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

/// openssl subcommands that only read their inputs and print, unless an
/// output option names a file.
const OPENSSL_READS: &[&str] = &[
    "x509",
    "req",
    "verify",
    "version",
    "ciphers",
    "crl",
    "asn1parse",
    "dgst",
    "list",
    "errstr",
    "help",
    "rsa",
    "ec",
    "pkey",
    "dsa",
    "pkcs7",
    "pkcs8",
    "pkcs12",
    "sess_id",
    "crl2pkcs7",
    "base64",
    "prime",
    "rand",
    "passwd",
    "pkeyutl",
    "rsautl",
    "storeutl",
    "s_time",
    "speed",
    "ecparam",
    "dhparam",
    "pkeyparam",
    "nseq",
    "spkac",
    "info",
    "cms",
    "smime",
    "ocsp",
    "md5",
    "sha1",
    "sha224",
    "sha256",
    "sha384",
    "sha512",
    "sha3-256",
    "sha3-512",
];

/// Options that write the file they name.
const OPENSSL_OUTPUTS: &[&str] = &[
    "out",
    "keyout",
    "sess_out",
    "keylogfile",
    "msgfile",
    "writerand",
    "CAcreateserial",
    "CAserial",
    "CA",
    "respout",
    "reqout",
    "certsout",
    "signer",
    "pk7out",
    "dump_out",
];

/// Options that load code or configuration we cannot see.
const OPENSSL_LOADS: &[&str] = &["engine", "provider", "provider-path", "config", "port"];

pub(super) fn openssl(inv: &Invocation<'_, '_>) -> Verdict {
    if let Some(v) = variable_option(inv) {
        return v;
    }
    let Some(sub) = inv.arg(0) else {
        return Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "without a command, waits for commands",
        );
    };
    let mut new_key = false;
    for arg in &inv.args[1..] {
        let text = arg.as_str();
        let Some(opt) = text.strip_prefix('-') else {
            continue;
        };
        let opt = opt.strip_prefix('-').unwrap_or(opt);
        let head = opt.split_once('=').map_or(opt, |(h, _)| h);
        if OPENSSL_OUTPUTS.contains(&head) {
            return Verdict::write(Risk::LowWrite, format!("`-{head}` writes a file"));
        }
        if OPENSSL_LOADS.contains(&head) {
            return Verdict::unknown(format!("`-{head}` loads code or configuration"));
        }
        new_key |= matches!(head, "new" | "newkey");
    }
    match sub {
        // What it reads from standard input it sends to the server.
        "s_client" => Verdict::interactive_writer(
            InteractiveCategory::InteractiveRepl,
            "sends standard input to the server; add </dev/null",
        ),
        "req" if new_key => Verdict::write(Risk::LowWrite, "`-new` generates a request and key"),
        "genrsa" | "genpkey" | "gendsa" => Verdict::write(Risk::LowWrite, "generates a key"),
        "ca" => Verdict::write(Risk::MediumWrite, "`ca` signs and updates the CA database"),
        _ if OPENSSL_READS.contains(&sub) || sub.starts_with('-') && inv.args.len() == 1 => {
            Verdict::Read
        }
        _ => Verdict::unknown(format!("subcommand `{sub}` is not known to be read-only")),
    }
}

const SSH_KEYGEN: Options = Options {
    short_flags: "lByLeiQAHkcpKuGTvqhoUX",
    short_values: "CDEFIMNOPRVYZabfgjmnrstwz",
    long_values: &[],
    long_flags: &[],
    ..Options::GNU
};

pub(super) fn ssh_keygen(inv: &Invocation<'_, '_>) -> Verdict {
    let mut read = false;
    // `-Y verify … -s SIG` names the signature to check, not a CA key.
    let verifies = SSH_KEYGEN.walk(inv.args).any(|t| {
        matches!(
            t,
            Tok::Short {
                flag: 'Y',
                value: Some("verify" | "check-novalidate" | "find-principals" | "match-principals"),
                ..
            }
        )
    });
    for tok in SSH_KEYGEN.walk(inv.args) {
        let (flag, value) = match tok {
            Tok::Short { flag, value, .. } => (flag, value),
            Tok::Operand { .. } => continue,
            Tok::Long { name: text, .. } | Tok::Unknown { text, .. } => return bad(text),
            Tok::Dynamic { index } => return bad(inv.args[index].raw),
        };
        match flag {
            'l' | 'B' | 'y' | 'L' | 'e' | 'i' | 'Q' | 'r' | 'F' => read = true,
            'Y' => match value {
                Some("verify" | "check-novalidate" | "find-principals" | "match-principals") => {
                    read = true;
                }
                _ => {
                    return Verdict::write(Risk::LowWrite, "`-Y` signs into a file");
                }
            },
            's' if verifies => {}
            'A' | 'H' | 'R' | 'k' | 's' | 'c' | 'p' | 'M' | 'K' | 't' | 'u' | 'G' | 'T' => {
                return Verdict::write(
                    Risk::MediumWrite,
                    format!("`-{flag}` writes keys, certificates or known_hosts"),
                );
            }
            'D' | 'w' => return Verdict::unknown(format!("`-{flag}` loads a library")),
            'f' | 'E' | 'v' | 'q' | 'C' | 'N' | 'P' | 'b' | 'a' | 'm' | 'O' | 'I' | 'n' | 'V'
            | 'z' | 'Z' | 'j' | 'g' | 'h' | 'o' | 'U' | 'X' => {}
            _ => return Verdict::unknown(format!("unknown option `-{flag}`")),
        }
    }
    if read {
        Verdict::Read
    } else {
        Verdict::write(Risk::LowWrite, "generates a key pair")
    }
}

pub(super) fn sshpass(_: &Invocation<'_, '_>) -> Verdict {
    Verdict::unknown("runs a program with a password")
}

#[cfg(test)]
mod tests {
    use crate::commands::testing::{is_interactive, is_read, is_write};

    #[test]
    fn openssl() {
        for line in [
            "openssl x509 -in cert.pem -noout -text",
            "openssl x509 -noout -dates -in /etc/ssl/certs/x.pem",
            "openssl x509 -in c.pem -noout -fingerprint -sha256",
            "openssl req -in r.csr -noout -text",
            "openssl verify -CAfile ca.pem cert.pem",
            "openssl version -a",
            "openssl ciphers -v",
            "openssl crl -in c.crl -noout -text",
            "openssl asn1parse -in c.pem",
            "openssl dgst -sha256 file",
            "openssl sha256 file",
            "openssl rsa -in k.pem -check -noout",
            "openssl pkey -in k.pem -pubout",
            "openssl pkcs12 -info -in f.p12 -nokeys",
            "openssl rand -hex 32",
            "openssl list -digest-algorithms",
            "openssl speed sha256",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "openssl x509 -in c.pem -out c.der -outform der",
            "openssl x509 -req -in r.csr -CA ca.pem -CAkey ca.key -CAcreateserial",
            "openssl req -new -key k.pem -out r.csr",
            "openssl req -newkey rsa:2048 -nodes -keyout k.pem",
            "openssl req -x509 -new -nodes -key k -subj /CN=x",
            "openssl genrsa -out k.pem 2048",
            "openssl genpkey -algorithm ed25519",
            "openssl ca -in r.csr",
            "openssl enc -aes-256-cbc -in f",
            "openssl aes-256-cbc -d -in f",
            "openssl rand -out f 32",
            "openssl s_client -connect h:443 -sess_out s",
            "openssl s_client -connect h:443 -keylogfile k",
            "openssl x509 -engine e -in c",
            "openssl s_server -accept 443",
            "openssl ocsp -port 8888",
            "openssl frob",
            "openssl rsa -in k -out=k2",
        ] {
            assert!(is_write(line), "{line}");
        }
        assert!(is_interactive("openssl s_client -connect host:443"));
        assert!(is_interactive(
            "openssl s_client -connect example.com:443 -servername example.com"
        ));
        assert!(is_interactive("openssl"));
    }

    #[test]
    fn ssh_keygen() {
        for line in [
            "ssh-keygen -l -f key.pub",
            "ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub",
            "ssh-keygen -E md5 -lf key.pub",
            "ssh-keygen -lvf key.pub",
            "ssh-keygen -F host",
            "ssh-keygen -F host -f known_hosts",
            "ssh-keygen -B -f key",
            "ssh-keygen -y -f id_ed25519",
            "ssh-keygen -L -f cert.pub",
            "ssh-keygen -r host -f key.pub",
            "ssh-keygen -Y verify -f allowed -I id -n file -s sig",
        ] {
            assert!(is_read(line), "{line}");
        }
        for line in [
            "ssh-keygen",
            "ssh-keygen -t ed25519 -f k -N x",
            "ssh-keygen -R host",
            "ssh-keygen -f known_hosts -R host",
            "ssh-keygen -H -f known_hosts",
            "ssh-keygen -p -f key",
            "ssh-keygen -c -C new -f key",
            "ssh-keygen -s ca -I id key.pub",
            "ssh-keygen -A",
            "ssh-keygen -Y sign -f key -n file data",
            "ssh-keygen -D /usr/lib/pkcs11.so",
            "ssh-keygen -lF host -H",
            "sshpass -p pw ssh host",
        ] {
            assert!(is_write(line), "{line}");
        }
    }
}
