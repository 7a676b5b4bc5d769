//! Base64 as the agent protocol writes it: the standard alphabet, padded on
//! output; padded or not on input (both are common and unambiguous).

use base64::Engine;
use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};

const ENGINE: GeneralPurpose = GeneralPurpose::new(
    &alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// `bytes` as padded standard base64.
pub fn encode_base64(bytes: &[u8]) -> String {
    ENGINE.encode(bytes)
}

/// Standard base64 (padding optional) decoded; `None` when it is not.
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    ENGINE.decode(text).ok()
}

/// Standard base64 that must decode to exactly `N` bytes.
pub fn decode_base64_array<const N: usize>(text: &str) -> Option<[u8; N]> {
    decode_base64(text).and_then(|bytes| bytes.try_into().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_written_and_optional_when_read() {
        assert_eq!(encode_base64(b"ab"), "YWI=");
        assert_eq!(decode_base64("YWI=").as_deref(), Some(&b"ab"[..]));
        assert_eq!(decode_base64("YWI").as_deref(), Some(&b"ab"[..]));
        assert_eq!(decode_base64("YW I="), None);
        assert_eq!(decode_base64_array::<2>("YWI="), Some(*b"ab"));
        assert_eq!(decode_base64_array::<3>("YWI="), None);
    }
}
