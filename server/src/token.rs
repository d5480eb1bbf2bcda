//! The bearer token: created on first run, kept with mode 0600 in the config directory, so only
//! the user's own extension (which the user pastes it into) can run tools.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The token file's name inside the config directory.
pub const TOKEN_FILE_NAME: &str = "token";

/// A fresh random token: 64 hex digits (256 bits from the OS random source).
pub fn generate() -> String {
    format!(
        "{}{}",
        uuid::Uuid::new_v4().simple(),
        uuid::Uuid::new_v4().simple()
    )
}

/// The token stored in `dir`, creating the directory (0700) and the file (0600) if needed.
/// The flag says whether it was created now.
pub fn load_or_create(dir: &Path) -> std::io::Result<(String, bool)> {
    let path = dir.join(TOKEN_FILE_NAME);
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok((text.trim().to_owned(), false)),
        Ok(_) => {}
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err),
    }
    create_private_dir(dir)?;
    let token = generate();
    write_private(&path, &token)?;
    Ok((token, true))
}

/// The token file's path in `dir`.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(TOKEN_FILE_NAME)
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir)
}

fn write_private(path: &Path, token: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    #[cfg(unix)]
    {
        // The mode above only applies to new files; an existing empty file keeps its mode.
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    file.write_all(token.as_bytes())?;
    file.write_all(b"\n")?;
    file.sync_all()
}

/// Compare without an early exit, so the time taken does not reveal how much matched.
pub fn matches(expected: &str, given: &str) -> bool {
    let (a, b) = (expected.as_bytes(), given.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_once_then_reused() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("mcp-bridge");
        let (first, created) = load_or_create(&sub).unwrap();
        assert!(created);
        assert_eq!(first.len(), 64);
        let (second, created) = load_or_create(&sub).unwrap();
        assert!(!created);
        assert_eq!(first, second);
    }

    #[cfg(unix)]
    #[test]
    fn file_is_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        load_or_create(dir.path()).unwrap();
        let mode = std::fs::metadata(path_in(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn comparison() {
        assert!(matches("abc", "abc"));
        assert!(!matches("abc", "abd"));
        assert!(!matches("abc", "ab"));
        assert_ne!(generate(), generate());
    }
}
