//! PEM blocks (`-----BEGIN …-----` to `-----END …-----`): their base64
//! body and its DER bytes; and the DER headers every private key of a
//! kind shares, which must not count as a particular key.

/// One PEM block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PemBlock {
    /// A `… PRIVATE KEY` block.
    pub private: bool,
    /// The body's base64, whitespace and header lines (`Proc-Type: …`) left out.
    pub body: String,
    /// The body decoded.
    pub der: Vec<u8>,
}

/// Every complete PEM block of `text`.
pub fn pem_blocks(text: &str) -> Vec<PemBlock> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(begin) = rest.find("-----BEGIN ") {
        let after = &rest[begin + "-----BEGIN ".len()..];
        let Some(label_end) = after.find("-----") else {
            break;
        };
        let label = &after[..label_end];
        let body_start = &after[label_end + 5..];
        let end_marker = format!("-----END {label}-----");
        let Some(end) = body_start.find(&end_marker) else {
            break;
        };
        let body: String = body_start[..end]
            .lines()
            .filter(|line| !line.contains(':'))
            .flat_map(|line| line.chars())
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        let mut der = Vec::new();
        let chars = body.trim_end_matches('=');
        super::views::decode_base64(chars.as_bytes(), &mut der);
        blocks.push(PemBlock {
            private: label.ends_with("PRIVATE KEY"),
            body,
            der,
        });
        rest = &body_start[end + end_marker.len()..];
    }
    blocks
}

/// Standard base64 with padding (for the headers' PEM form).
pub fn encode_base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let mut acc = [0u8; 3];
        acc[..chunk.len()].copy_from_slice(chunk);
        let n = u32::from(acc[0]) << 16 | u32::from(acc[1]) << 8 | u32::from(acc[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let index = (n >> (18 - 6 * i)) & 63;
                out.push(char::from(ALPHABET[index as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The structure every private key of a kind starts with (or carries
/// between its secret and its public half): PKCS#8 and SEC1 EC keys
/// (P-256, P-384), PKCS#8 Ed25519, PKCS#8 and PKCS#1 RSA of the common
/// sizes. Their windows are public; the ones that reach into the key's
/// random bytes are not.
pub const COMMON_DER_HEADERS: &[&[u8]] = &[
    // PKCS#8 P-256
    b"\x30\x81\x87\x02\x01\x00\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\x04\x6d\x30\x6b\x02\x01\x01\x04\x20",
    // PKCS#8 P-384
    b"\x30\x81\xb6\x02\x01\x00\x30\x10\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x05\x2b\x81\x04\x00\x22\x04\x81\x9e\x30\x81\x9b\x02\x01\x01\x04\x30",
    // SEC1 P-256 and P-384, and what sits between the secret and the public key
    b"\x30\x77\x02\x01\x01\x04\x20",
    b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04",
    b"\x30\x81\xa4\x02\x01\x01\x04\x30",
    b"\xa0\x07\x06\x05\x2b\x81\x04\x00\x22\xa1\x64\x03\x62\x00\x04",
    // PKCS#8 Ed25519
    b"\x30\x2e\x02\x01\x00\x30\x05\x06\x03\x2b\x65\x70\x04\x22\x04\x20",
    // PKCS#8 RSA 2048 (three length spellings) and 4096
    b"\x30\x82\x04\xbd\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa7\x30\x82\x04\xa3\x02\x01\x00\x02\x82\x01\x01\x00",
    b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa8\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00",
    b"\x30\x82\x04\xbc\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x04\xa6\x30\x82\x04\xa2\x02\x01\x00\x02\x82\x01\x01\x00",
    b"\x30\x82\x09\x42\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x09\x2c\x30\x82\x09\x28\x02\x01\x00\x02\x82\x02\x01\x00",
    b"\x30\x82\x09\x43\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x04\x82\x09\x2d\x30\x82\x09\x29\x02\x01\x00\x02\x82\x02\x01\x00",
    // PKCS#1 RSA 2048 and 4096, the public exponent 65537
    b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00",
    b"\x30\x82\x04\xa3\x02\x01\x00\x02\x82\x01\x01\x00",
    b"\x30\x82\x09\x28\x02\x01\x00\x02\x82\x02\x01\x00",
    b"\x30\x82\x09\x29\x02\x01\x00\x02\x82\x02\x01\x00",
    b"\x02\x03\x01\x00\x01\x02\x82\x01\x00",
    b"\x02\x03\x01\x00\x01\x02\x82\x02\x00",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_and_their_bytes() {
        let body = encode_base64(b"0123456789abcdef-private-bytes");
        let text = format!(
            "junk\n-----BEGIN PRIVATE KEY-----\n{}\n{}\n-----END PRIVATE KEY-----\n-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----\n",
            &body[..20],
            &body[20..]
        );
        let blocks = pem_blocks(&text);
        assert_eq!(blocks.len(), 2);
        assert!(blocks[0].private && !blocks[1].private);
        assert_eq!(blocks[0].body, body);
        assert_eq!(blocks[0].der, b"0123456789abcdef-private-bytes");
        assert_eq!(blocks[1].der, b"ABC");
    }

    #[test]
    fn base64_encoding() {
        assert_eq!(encode_base64(b""), "");
        assert_eq!(encode_base64(b"f"), "Zg==");
        assert_eq!(encode_base64(b"fo"), "Zm8=");
        assert_eq!(encode_base64(b"foo"), "Zm9v");
        assert_eq!(encode_base64(b"foob"), "Zm9vYg==");
    }
}
