//! Table tests: one secret through every encoding a read command gives it.
//! The dump and filter outputs are verbatim from the tools (xxd 2023,
//! GNU coreutils 9, util-linux hexdump).

use super::pem::encode_base64;
use super::*;

const KEY: &str = "sk-ant-api03-Zq8vK2mLx9RtYw4PbN7cJd";

fn registry() -> KnownSecrets {
    let mut known = KnownSecrets::new();
    known.add("model API key", KEY.as_bytes()).unwrap();
    known
}

/// `printf '%s\n' KEY > k1`, then each command on `k1` (`xxd` and
/// `hexdump -C` show it as is in their text column).
const TOOL_OUTPUTS: &[(&str, &str, Encoding)] = &[
    (
        "xxd",
        r#"00000000: 736b 2d61 6e74 2d61 7069 3033 2d5a 7138  sk-ant-api03-Zq8
00000010: 764b 326d 4c78 3952 7459 7734 5062 4e37  vK2mLx9RtYw4PbN7
00000020: 634a 640a                                cJd.
"#,
        Encoding::Raw,
    ),
    (
        "xxd -p",
        r#"736b2d616e742d61706930332d5a7138764b326d4c783952745977345062
4e37634a640a
"#,
        Encoding::Hex,
    ),
    (
        "xxd -p -u",
        r#"736B2D616E742D61706930332D5A7138764B326D4C783952745977345062
4E37634A640A
"#,
        Encoding::Hex,
    ),
    (
        "od -An -tx1",
        r#" 73 6b 2d 61 6e 74 2d 61 70 69 30 33 2d 5a 71 38
 76 4b 32 6d 4c 78 39 52 74 59 77 34 50 62 4e 37
 63 4a 64 0a
"#,
        Encoding::Hex,
    ),
    (
        "od -x",
        r#"0000000 6b73 612d 746e 612d 6970 3330 5a2d 3871
0000020 4b76 6d32 784c 5239 5974 3477 6250 374e
0000040 4a63 0a64
0000044
"#,
        Encoding::Hex,
    ),
    (
        "hexdump -C",
        r#"00000000  73 6b 2d 61 6e 74 2d 61  70 69 30 33 2d 5a 71 38  |sk-ant-api03-Zq8|
00000010  76 4b 32 6d 4c 78 39 52  74 59 77 34 50 62 4e 37  |vK2mLx9RtYw4PbN7|
00000020  63 4a 64 0a                                       |cJd.|
00000024
"#,
        Encoding::Raw,
    ),
    (
        "base64",
        r#"c2stYW50LWFwaTAzLVpxOHZLMm1MeDlSdFl3NFBiTjdjSmQK
"#,
        Encoding::Base64,
    ),
    (
        "rev",
        r#"dJc7NbP4wYtR9xLm2Kv8qZ-30ipa-tna-ks
"#,
        Encoding::Reversed,
    ),
    (
        "cut -c1-20",
        r#"sk-ant-api03-Zq8vK2m
"#,
        Encoding::Raw,
    ),
    (
        "cut -c15-34",
        r#"q8vK2mLx9RtYw4PbN7cJ
"#,
        Encoding::Raw,
    ),
    (
        "fold -w 10",
        r#"sk-ant-api
03-Zq8vK2m
Lx9RtYw4Pb
N7cJd
"#,
        Encoding::Raw,
    ),
    (
        "base64 | rev",
        r#"KQmSjdjTiBFN3lFdSlDeM1mMLZHOxpVLzATawFWL05WYts2c
"#,
        Encoding::ReversedBase64,
    ),
    (
        "rev | base64",
        r#"ZEpjN05iUDR3WXRSOXhMbTJLdjhxWi0zMGlwYS10bmEta3MK
"#,
        Encoding::ReversedBase64,
    ),
    (
        "xxd -p | rev",
        r#"260543779547259387c4d623b4678317a5d23303960716d247e616d2b637
a046a43673e4
"#,
        Encoding::ReversedHex,
    ),
    (
        "base64url",
        r#"c2stYW50LWFwaTAzLVpxOHZLMm1MeDlSdFl3NFBiTjdjSmQK"#,
        Encoding::Base64,
    ),
];

#[test]
fn every_tool_output_trips_the_canary() {
    let known = registry();
    for (command, output, encoding) in TOOL_OUTPUTS {
        let found = known.find(output);
        assert_eq!(
            found,
            Some(Found {
                label: "model API key".into(),
                encoding: *encoding
            }),
            "{command}:\n{output}"
        );
    }
}

#[test]
fn the_message_names_the_label_never_the_secret() {
    let found = registry().find(&encode_base64(KEY.as_bytes())).unwrap();
    assert_eq!(
        found.message(),
        "the output contained Warden's model API key (base64); it was withheld"
    );
    assert!(!found.message().contains(KEY));
    assert!(!format!("{:?}", registry()).contains(KEY));
}

/// Deterministic filler bytes (no RNG dependency in the table).
fn filler(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u8)
                .wrapping_mul(131)
                .wrapping_add(seed)
                .rotate_left(3)
        })
        .collect()
}

fn wrap(text: &str, width: usize) -> String {
    text.as_bytes()
        .chunks(width)
        .map(|line| format!("{}\n", String::from_utf8_lossy(line)))
        .collect()
}

/// `xxd` of `bytes`: offset, eight groups of two bytes, the text column.
fn xxd(bytes: &[u8]) -> String {
    let mut out = String::new();
    for (line, chunk) in bytes.chunks(16).enumerate() {
        let mut hex = String::new();
        for (i, b) in chunk.iter().enumerate() {
            hex.push_str(&format!("{b:02x}"));
            if i % 2 == 1 {
                hex.push(' ');
            }
        }
        let text: String = chunk
            .iter()
            .map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            })
            .collect();
        out.push_str(&format!("{:08x}: {hex:<40} {text}\n", line * 16));
    }
    out
}

/// The secret inside a larger blob at each byte offset mod 3, encoded the
/// ways `base64`, `openssl base64`, `base64 -w0 | tr '+/' '-_'` and `xxd`
/// print it, and cut to start anywhere.
#[test]
fn a_secret_inside_a_larger_blob() {
    let known = registry();
    for before in [0usize, 1, 2, 300, 301, 302] {
        let mut blob = filler(before, 7);
        blob.extend_from_slice(KEY.as_bytes());
        blob.extend(filler(200, 11));
        let standard = encode_base64(&blob);
        let url_safe: String = standard
            .trim_end_matches('=')
            .replace('+', "-")
            .replace('/', "_");
        let hex: String = blob.iter().map(|b| format!("{b:02X}")).collect();
        let outputs = [
            (wrap(&standard, 76), Encoding::Base64),
            (wrap(&standard, 64), Encoding::Base64),
            (url_safe.clone(), Encoding::Base64),
            (standard[1..].to_string(), Encoding::Base64),
            (standard[2..].to_string(), Encoding::Base64),
            (standard[3..].to_string(), Encoding::Base64),
            (format!("data: {}", &url_safe[5..]), Encoding::Base64),
            (hex.clone(), Encoding::Hex),
            (hex[1..].to_lowercase(), Encoding::Hex),
            (wrap(&hex.to_lowercase(), 60), Encoding::Hex),
            // the text column shows it as is
            (xxd(&blob), Encoding::Raw),
        ];
        for (output, encoding) in outputs {
            let found = known.find(&output).map(|f| f.encoding);
            assert_eq!(found, Some(encoding), "{before} bytes before:\n{output}");
        }
    }
}

#[test]
fn a_window_of_the_secret_is_enough_and_less_is_not() {
    let known = registry();
    assert!(known.find(&KEY[3..3 + WINDOW]).is_some());
    assert!(known.find(&format!("x{}y", &KEY[10..30])).is_some());
    assert!(known.find(&KEY[3..3 + WINDOW - 1]).is_none());
    // `head -c 20 | base64`
    assert!(known.find(&encode_base64(&KEY.as_bytes()[..20])).is_some());
}

#[test]
fn short_secrets_match_whole_and_tiny_ones_are_refused() {
    let mut known = KnownSecrets::new();
    known.add("admin password", b"Tr0ub4dor&3").unwrap();
    assert!(known.find("password: Tr0ub4dor&3\n").is_some());
    assert!(known.find("Tr0ub4dor&").is_none());
    assert!(known.find(&encode_base64(b"Tr0ub4dor&3")).is_some());
    assert_eq!(
        known.add("pin", b"1234567"),
        Err(KnownSecretError::TooShort {
            label: "pin".into()
        })
    );
    assert_eq!(known.labels(), ["admin password"]);
}

#[test]
fn several_secrets_each_named() {
    let mut known = registry();
    known
        .add(
            "Proxmox token secret of cluster lab",
            b"0b7f6a4e-3c2d-4e1f-9a8b-7c6d5e4f3a2b",
        )
        .unwrap();
    known
        .add("agent grant-signing key", &filler(32, 99))
        .unwrap();
    let found = known
        .find("value: 0b7f6a4e-3c2d-4e1f-9a8b-7c6d5e4f3a2b")
        .unwrap();
    assert_eq!(found.label, "Proxmox token secret of cluster lab");
    let hex: String = filler(32, 99).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(known.find(&hex).unwrap().label, "agent grant-signing key");
    assert!(
        known
            .find("total 0\ndrwxr-xr-x 2 root root 4096 .\n")
            .is_none()
    );
}

#[test]
fn json_strings_are_searched_together() {
    let known = registry();
    let lines: Vec<String> = KEY
        .as_bytes()
        .chunks(10)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let value = serde_json::json!({"stdout": "", "lines": lines, "exit_code": 0});
    assert!(known.find_in_json(&value).is_some());
    assert!(
        known
            .find_in_json(&serde_json::json!({"stdout": "ok"}))
            .is_none()
    );
}

/// A PEM private key: `cat`, `base64`, `rev`, the DER in `xxd`, `cut -c1-20`
/// all trip it; its certificate (public material) does not.
#[test]
fn pem_private_keys_and_their_certificate() {
    let mut der = b"\x30\x77\x02\x01\x01\x04\x20".to_vec();
    der.extend(filler(32, 201));
    der.extend_from_slice(
        b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04",
    );
    let public_point = filler(64, 77);
    der.extend(&public_point);
    let pem = format!(
        "-----BEGIN EC PRIVATE KEY-----\n{}-----END EC PRIVATE KEY-----\n",
        wrap(&encode_base64(&der), 64)
    );
    let mut cert_der = b"\x30\x82\x01\x00 certificate things, subject, issuer ".to_vec();
    cert_der.extend(&public_point);
    cert_der.extend_from_slice(b" signature ");
    cert_der.extend(filler(64, 5));
    let cert = format!(
        "-----BEGIN CERTIFICATE-----\n{}-----END CERTIFICATE-----\n",
        wrap(&encode_base64(&cert_der), 64)
    );
    let mut known = KnownSecrets::new();
    known.add_private_key_pem("TLS private key", &pem).unwrap();
    known.add_public(cert.as_bytes()).unwrap();
    let reversed: String = pem.chars().rev().collect();
    let cut: String = pem
        .lines()
        .map(|l| format!("{}\n", &l[..l.len().min(20)]))
        .collect();
    for output in [
        pem.clone(),
        encode_base64(pem.as_bytes()),
        reversed,
        xxd(&der),
        cut,
    ] {
        assert!(known.find(&output).is_some(), "{output}");
    }
    assert_eq!(known.find(&cert), None);
    assert_eq!(known.find(&xxd(&cert_der)), None);
    // Another key of the same kind shares only the structure.
    let mut other = b"\x30\x77\x02\x01\x01\x04\x20".to_vec();
    other.extend(filler(32, 13));
    other.extend_from_slice(
        b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04",
    );
    other.extend(filler(64, 17));
    assert_eq!(known.find(&xxd(&other)), None);
    assert_eq!(known.find(&encode_base64(&other)), None);
    assert!(matches!(
        KnownSecrets::new().add_private_key_pem("TLS private key", &cert),
        Err(KnownSecretError::NoPrivateKey { .. })
    ));
}

#[test]
fn the_shared_registry_grows_after_the_fact() {
    let shared = SharedKnownSecrets::default();
    assert!(shared.snapshot().find(KEY).is_none());
    let before = shared.snapshot();
    shared
        .update(|known| known.add("model API key", KEY.as_bytes()))
        .unwrap();
    assert!(shared.snapshot().find(KEY).is_some());
    assert!(before.find(KEY).is_none(), "a snapshot does not change");
    assert!(shared.update(|known| known.add("x", b"short")).is_err());
    assert_eq!(shared.snapshot().labels(), ["model API key"]);
}

/// An RSA 4096 key's size (~2,400 DER bytes, ~3,200 base64 characters):
/// too many windows for a DFA, searched with an NFA, still found.
#[test]
fn a_large_key_is_searched_too() {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let der: Vec<u8> = (0..2_400)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect();
    let pem = format!(
        "-----BEGIN PRIVATE KEY-----\n{}-----END PRIVATE KEY-----\n",
        wrap(&encode_base64(&der), 64)
    );
    let mut known = registry();
    known.add_private_key_pem("TLS private key", &pem).unwrap();
    assert_eq!(known.find(&pem).unwrap().label, "TLS private key");
    assert_eq!(
        known.find(&xxd(&der[1_000..1_100])).unwrap().encoding,
        Encoding::Hex
    );
    assert_eq!(known.find(KEY).unwrap().label, "model API key");
    assert_eq!(known.find("total 0\n"), None);
}
