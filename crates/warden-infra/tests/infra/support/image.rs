//! The test image, built locally from this machine's binaries (no registry
//! can be reached) by `build-test-image.sh`, once per tag: the script does
//! nothing when the tag exists, and a process builds it at most once.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// Bump when `build-test-image.sh` changes what goes into the image.
pub const TEST_IMAGE_TAG: &str = "warden-test-base:1";

/// The tag of the test image (`/bin/sh`, `sleep`, `cat`, `echo`), built on
/// first use.
pub fn test_image() -> String {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let script = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests")
                .join("support")
                .join("build-test-image.sh");
            let out = Command::new("sh")
                .arg(&script)
                .arg(TEST_IMAGE_TAG)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "building the test image failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            TEST_IMAGE_TAG.to_string()
        })
        .clone()
}
