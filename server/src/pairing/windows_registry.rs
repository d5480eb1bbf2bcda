//! The Windows half of the registration: browsers find a native messaging host through a
//! key under `HKEY_CURRENT_USER` whose default value is the manifest's path.

use std::path::Path;

use winreg::RegKey;
use winreg::enums::HKEY_CURRENT_USER;

use super::paths::{Browser, registry_key};

pub(crate) fn register(browser: Browser, manifest: &Path) -> Result<(), String> {
    let key = registry_key(browser);
    let (entry, _) = RegKey::predef(HKEY_CURRENT_USER)
        .create_subkey(&key)
        .map_err(|err| format!("cannot create HKCU\\{key}: {err}"))?;
    entry
        .set_value("", &manifest.to_string_lossy().into_owned())
        .map_err(|err| format!("cannot write HKCU\\{key}: {err}"))
}

pub(crate) fn unregister(browser: Browser) -> Result<(), String> {
    let key = registry_key(browser);
    match RegKey::predef(HKEY_CURRENT_USER).delete_subkey(&key) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(format!("cannot remove HKCU\\{key}: {err}")),
    }
}

pub(crate) fn is_registered(browser: Browser, manifest: &Path) -> bool {
    RegKey::predef(HKEY_CURRENT_USER)
        .open_subkey(registry_key(browser))
        .and_then(|entry| entry.get_value::<String, _>(""))
        .is_ok_and(|value| Path::new(&value) == manifest)
}
