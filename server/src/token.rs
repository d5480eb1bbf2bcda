//! The bearer token: 256 random bits, created on first run and kept with mode 0600 in a 0700
//! config directory, so only the user's own extension (which the user pastes it into) can run
//! tools. A token file or directory others can read is repaired (and reported); a token file
//! that is a symbolic link is refused, and writing never follows one.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};

/// The token file's name inside the config directory.
pub(crate) const TOKEN_FILE_NAME: &str = "token";

/// Random bytes in a token (256 bits).
pub(crate) const TOKEN_BYTES: usize = 32;

/// Why the token could not be read or created.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TokenError {
    #[error(
        "{0} is a symbolic link; the bridge does not read or write its token through a link. \
         Delete it (the bridge then creates a new token) or pass --token"
    )]
    Symlink(PathBuf),
    #[error("{0} is not a regular file")]
    NotAFile(PathBuf),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the operating system's random source failed: {0}")]
    Random(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> TokenError + '_ {
    move |source| TokenError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A fresh random token: 64 hex digits encoding 32 bytes from the OS random source.
pub(crate) fn generate() -> Result<String, TokenError> {
    let mut bytes = [0u8; TOKEN_BYTES];
    getrandom::fill(&mut bytes).map_err(|err| TokenError::Random(err.to_string()))?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// The stored token, and what happened on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Loaded {
    pub(crate) token: String,
    /// It was created now.
    pub(crate) created: bool,
    /// Permissions that were too open and were tightened, one line each, for the user.
    pub(crate) repaired: Vec<String>,
}

/// The token stored in `dir`, creating the directory (0700) and the file (0600) if needed.
/// A directory or file that others can read is made private again (and reported).
pub(crate) fn load_or_create(dir: &Path) -> Result<Loaded, TokenError> {
    let path = path_in(dir);
    let mut repaired = Vec::new();
    create_private_dir(dir)?;
    repair_mode(dir, 0o700, &mut repaired)?;
    if let Some(text) = read_existing(&path)? {
        repair_mode(&path, 0o600, &mut repaired)?;
        if !text.trim().is_empty() {
            return Ok(Loaded {
                token: text.trim().to_owned(),
                created: false,
                repaired,
            });
        }
    }
    let token = generate()?;
    write_private(dir, &path, &token)?;
    Ok(Loaded {
        token,
        created: true,
        repaired,
    })
}

/// The token file's path in `dir`.
pub(crate) fn path_in(dir: &Path) -> PathBuf {
    dir.join(TOKEN_FILE_NAME)
}

/// The file's text, `None` if it does not exist; a link or a non-file is refused.
fn read_existing(path: &Path) -> Result<Option<String>, TokenError> {
    match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io(path)(err)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(TokenError::Symlink(path.to_owned()));
        }
        Ok(meta) if !meta.is_file() => return Err(TokenError::NotAFile(path.to_owned())),
        Ok(_) => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        // A link swapped in after the check above is refused by the kernel.
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut text = String::new();
    options
        .open(path)
        .and_then(|mut file| file.read_to_string(&mut text))
        .map_err(io(path))?;
    Ok(Some(text))
}

fn create_private_dir(dir: &Path) -> Result<(), TokenError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(io(dir))
}

/// Take group and other permissions away from `path` when it has any.
#[cfg(unix)]
fn repair_mode(path: &Path, private: u32, repaired: &mut Vec<String>) -> Result<(), TokenError> {
    use std::os::unix::fs::PermissionsExt as _;
    let mode = std::fs::metadata(path)
        .map_err(io(path))?
        .permissions()
        .mode()
        & 0o777;
    if mode & 0o077 != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(private))
            .map_err(io(path))?;
        repaired.push(format!(
            "{} had mode {mode:04o}, so other users could read the token; it now has mode {private:04o}",
            path.display()
        ));
    }
    Ok(())
}

#[cfg(not(unix))]
fn repair_mode(_: &Path, _: u32, _: &mut Vec<String>) -> Result<(), TokenError> {
    Ok(())
}

/// Write the token to a new file (`create_new`, never through a link) and move it into place.
fn write_private(dir: &Path, path: &Path, token: &str) -> Result<(), TokenError> {
    let suffix = generate()?;
    let temporary = dir.join(format!(".{TOKEN_FILE_NAME}.{}", &suffix[..16]));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    let written = options.open(&temporary).and_then(|mut file| {
        file.write_all(token.as_bytes())?;
        file.write_all(b"\n")?;
        file.sync_all()
    });
    // `rename` replaces a directory entry; it never writes through a link at `path`.
    let moved = written.and_then(|()| std::fs::rename(&temporary, path));
    if moved.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    moved.map_err(io(path))
}

/// Compare without an early exit, so the time taken does not reveal how much matched.
pub(crate) fn matches(expected: &str, given: &str) -> bool {
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
        let first = load_or_create(&sub).unwrap();
        assert!(first.created);
        assert_eq!(first.token.len(), 64);
        let second = load_or_create(&sub).unwrap();
        assert!(!second.created);
        assert_eq!(first.token, second.token);
    }

    #[cfg(unix)]
    #[test]
    fn file_and_dir_are_private_and_repaired() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("b");
        load_or_create(&sub).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path_in(&sub)), 0o600);
        assert_eq!(mode(&sub), 0o700);
        std::fs::set_permissions(path_in(&sub), std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o755)).unwrap();
        let loaded = load_or_create(&sub).unwrap();
        assert_eq!(loaded.repaired.len(), 2, "{:?}", loaded.repaired);
        assert_eq!(mode(&path_in(&sub)), 0o600);
        assert_eq!(mode(&sub), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::os::unix::fs::symlink(&victim, path_in(dir.path())).unwrap();
        assert!(matches!(
            load_or_create(dir.path()),
            Err(TokenError::Symlink(_))
        ));
        assert!(!victim.exists());
    }

    #[test]
    fn comparison_and_randomness() {
        assert!(matches("abc", "abc"));
        assert!(!matches("abc", "abd"));
        assert!(!matches("abc", "ab"));
        let tokens: Vec<String> = (0..8).map(|_| generate().unwrap()).collect();
        assert_ne!(tokens[0], tokens[1]);
        // UUIDv4 would fix the version nibble at 12 in every token.
        assert!(
            tokens
                .iter()
                .any(|t| &t[12..13] != "4" || &t[44..45] != "4")
        );
    }
}
