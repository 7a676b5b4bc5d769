//! Where `warden serve` keeps its data (`--data-dir`): the database
//! `warden.db`, TLS material and the first admin's password file.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use warden_store::Store;

/// `--data-dir`, else `$WARDEN_DATA_DIR`, else `$XDG_DATA_HOME/warden`,
/// else `~/.local/share/warden`.
pub fn resolve(flag: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(dir) = flag.or_else(|| std::env::var_os("WARDEN_DATA_DIR").map(PathBuf::from)) {
        return Ok(dir);
    }
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .context("cannot find a data directory: set --data-dir or WARDEN_DATA_DIR")?;
    Ok(data.join("warden"))
}

/// Create the directory (0700) and open its database.
pub fn open(dir: &std::path::Path) -> Result<Arc<Store>> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .with_context(|| format!("creating {}", dir.display()))?;
    }
    let path = dir.join("warden.db");
    let store = Store::open(&path).with_context(|| format!("opening {}", path.display()))?;
    Ok(Arc::new(store))
}
