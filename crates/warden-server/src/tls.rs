//! TLS for the listener (rustls on ring): a certificate and key from PEM
//! files, or a self-signed certificate generated once and kept in the data
//! directory. The SHA-256 fingerprint of the served certificate is
//! reported so that clients can pin it.

use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::{CertificateDer, PrivateKeyDer};

#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("reading {path}: {message}")]
    Read { path: PathBuf, message: String },
    #[error("{0} holds no certificate")]
    NoCertificate(PathBuf),
    #[error("{0} holds no private key")]
    NoKey(PathBuf),
    #[error("generating the self-signed certificate: {0}")]
    Generate(String),
    #[error("writing {path}: {message}")]
    Write { path: PathBuf, message: String },
    #[error("TLS configuration: {0}")]
    Config(String),
}

/// What the listener serves.
pub struct TlsSetup {
    pub config: Arc<rustls::ServerConfig>,
    /// SHA-256 of the leaf certificate's DER, `AB:CD:…`.
    pub fingerprint: String,
}

/// `AB:CD:…` (uppercase hex pairs) of the SHA-256 of `der`.
pub fn fingerprint(der: &[u8]) -> String {
    warden_infra::tls::CertFingerprint::of_der(der).to_string()
}

fn read_error(path: &Path) -> impl Fn(std::io::Error) -> TlsError + '_ {
    move |e| TlsError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Certificates and key from PEM files.
pub fn from_files(cert: &Path, key: &Path) -> Result<TlsSetup, TlsError> {
    let mut reader = BufReader::new(std::fs::File::open(cert).map_err(read_error(cert))?);
    let certs: Vec<CertificateDer<'static>> = rustls_pemfile::certs(&mut reader)
        .collect::<Result<_, _>>()
        .map_err(read_error(cert))?;
    let mut reader = BufReader::new(std::fs::File::open(key).map_err(read_error(key))?);
    let key_der = rustls_pemfile::private_key(&mut reader)
        .map_err(read_error(key))?
        .ok_or_else(|| TlsError::NoKey(key.to_path_buf()))?;
    build(certs, key_der, cert)
}

fn build(
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    origin: &Path,
) -> Result<TlsSetup, TlsError> {
    let leaf = certs
        .first()
        .ok_or_else(|| TlsError::NoCertificate(origin.to_path_buf()))?;
    let fingerprint = fingerprint(leaf.as_ref());
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|e| TlsError::Config(e.to_string()))?
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .map_err(|e| TlsError::Config(e.to_string()))?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(TlsSetup {
        config: Arc::new(config),
        fingerprint,
    })
}

/// The key and certificate files a TLS mode serves (`None`: plain HTTP).
pub fn files(mode: &crate::config::TlsMode, data_dir: &Path) -> Option<(PathBuf, PathBuf)> {
    match mode {
        crate::config::TlsMode::Off => None,
        crate::config::TlsMode::Files { cert, key } => Some((key.clone(), cert.clone())),
        crate::config::TlsMode::SelfSigned => {
            let dir = data_dir.join("tls");
            Some((dir.join("self-signed.key"), dir.join("self-signed.crt")))
        }
    }
}

/// Watch for the served private key in every tool output (the
/// known-secret canary); its certificate is public, so reading it is fine.
pub fn watch_private_key(
    known: &warden_core::redact::known::SharedKnownSecrets,
    key: &Path,
    cert: &Path,
) -> Result<(), TlsError> {
    let key_pem = std::fs::read_to_string(key).map_err(read_error(key))?;
    let cert_pem = std::fs::read_to_string(cert).map_err(read_error(cert))?;
    known
        .update(|known| {
            known.add_private_key_pem("TLS private key", &key_pem)?;
            known.add_public(cert_pem.as_bytes())
        })
        .map_err(|e| TlsError::Config(format!("{}: {e}", key.display())))
}

/// The self-signed certificate in `data_dir/tls/`, generated on first use
/// (for `localhost`, `127.0.0.1`, `::1` and this host's name).
pub fn self_signed(data_dir: &Path) -> Result<TlsSetup, TlsError> {
    let dir = data_dir.join("tls");
    let cert = dir.join("self-signed.crt");
    let key = dir.join("self-signed.key");
    if !(cert.exists() && key.exists()) {
        generate(&dir, &cert, &key)?;
    }
    from_files(&cert, &key)
}

fn generate(dir: &Path, cert: &Path, key: &Path) -> Result<(), TlsError> {
    let mut names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    if let Ok(host) = std::fs::read_to_string("/etc/hostname") {
        let host = host.trim();
        if !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
        {
            names.push(host.to_string());
        }
    }
    let generated =
        rcgen::generate_simple_self_signed(names).map_err(|e| TlsError::Generate(e.to_string()))?;
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| TlsError::Write {
            path: path.clone(),
            message: e.to_string(),
        }
    };
    use std::os::unix::fs::DirBuilderExt;
    // Private like everything in the data directory (the certificate is
    // public, but the directory's rule is simpler without exceptions).
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(write_error(dir))?;
    write_file(key, &generated.signing_key.serialize_pem(), 0o600).map_err(write_error(key))?;
    write_file(cert, &generated.cert.pem(), 0o600).map_err(write_error(cert))?;
    Ok(())
}

fn write_file(path: &Path, text: &str, mode: u32) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(mode)
        .open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_self_signed_certificate_is_generated_once_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let first = self_signed(dir.path()).unwrap();
        let again = self_signed(dir.path()).unwrap();
        assert_eq!(
            first.fingerprint, again.fingerprint,
            "kept, not regenerated"
        );
        assert_eq!(first.fingerprint.len(), 32 * 3 - 1);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.path().join("tls/self-signed.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    /// The served key trips the canary in any encoding; its certificate,
    /// which carries the public half, does not.
    #[test]
    fn the_private_key_is_watched_and_the_certificate_is_not() {
        use base64::Engine;
        let dir = tempfile::tempdir().unwrap();
        self_signed(dir.path()).unwrap();
        let mode = crate::config::TlsMode::SelfSigned;
        let (key, cert) = files(&mode, dir.path()).unwrap();
        let known = warden_core::redact::known::SharedKnownSecrets::default();
        watch_private_key(&known, &key, &cert).unwrap();
        let known = known.snapshot();
        let key_pem = std::fs::read_to_string(&key).unwrap();
        let cert_pem = std::fs::read_to_string(&cert).unwrap();
        let der = rustls_pemfile::private_key(&mut key_pem.as_bytes())
            .unwrap()
            .unwrap();
        let reversed: String = key_pem.chars().rev().collect();
        for output in [
            key_pem.clone(),
            base64::engine::general_purpose::STANDARD.encode(&key_pem),
            reversed,
            hex::encode(der.secret_der()),
        ] {
            let found = known.find(&output).unwrap();
            assert_eq!(found.label, "TLS private key");
        }
        assert_eq!(known.find(&cert_pem), None);
        let cert_der = rustls_pemfile::certs(&mut cert_pem.as_bytes())
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(known.find(&hex::encode(cert_der.as_ref())), None);
        // Another key of the same kind is not this one.
        let other = tempfile::tempdir().unwrap();
        self_signed(other.path()).unwrap();
        let other_key = std::fs::read_to_string(other.path().join("tls/self-signed.key")).unwrap();
        assert_eq!(known.find(&other_key), None);
    }

    #[test]
    fn missing_files_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let nope = dir.path().join("nope.pem");
        assert!(matches!(
            from_files(&nope, &nope),
            Err(TlsError::Read { .. })
        ));
    }

    #[test]
    fn fingerprints_are_colon_separated_uppercase_hex() {
        assert_eq!(
            fingerprint(b"abc"),
            "BA:78:16:BF:8F:01:CF:EA:41:41:40:DE:5D:AE:22:23:B0:03:61:A3:96:17:7A:9C:B4:10:FF:61:F2:00:15:AD"
        );
    }
}
