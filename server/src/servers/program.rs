//! Finding the program a stdio server's `command` names, the way a Windows shell would. On
//! Windows `npx` is `npx.cmd` (and a Python tool may be a `.bat`): the process API starts
//! only files named exactly and std's own search adds only `.exe`, so `"command": "npx"`
//! would not be found. The search here follows `PATH` and `PATHEXT` like `cmd.exe`; std then
//! starts a `.cmd`/`.bat` through `cmd.exe` with its arguments escaped. The logic is pure
//! (the file test is passed in) so it is tested on every platform.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// `PATHEXT` when the environment has none: the extensions `cmd.exe` tries by default.
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "used on Windows; its unit tests run on every OS")
)]
pub(crate) const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The file `command` names on Windows, searched in `path` (the child's `PATH`, `;`-separated)
/// with the extensions of `pathext`; `None` when no such file exists (the caller then starts
/// `command` as written, whose "not found" names it). A command with a directory part is
/// looked up only there; one that already ends in an extension of `pathext` is tried as
/// written first.
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "used on Windows; its unit tests run on every OS")
)]
pub(crate) fn find_on_windows(
    command: &str,
    path: Option<&OsStr>,
    pathext: Option<&OsStr>,
    is_file: impl Fn(&Path) -> bool,
) -> Option<PathBuf> {
    if command.is_empty() {
        return None;
    }
    let pathext = pathext
        .map(|value| value.to_string_lossy().into_owned())
        .filter(|value| !value.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_PATHEXT.to_owned());
    let extensions: Vec<&str> = pathext
        .split(';')
        .map(str::trim)
        .filter(|ext| ext.starts_with('.') && ext.len() > 1)
        .collect();
    let has_known_extension = extensions.iter().any(|ext| {
        command.len() > ext.len()
            && command.is_char_boundary(command.len() - ext.len())
            && command[command.len() - ext.len()..].eq_ignore_ascii_case(ext)
    });
    let candidates = |base: PathBuf| {
        let mut names = Vec::new();
        if has_known_extension {
            names.push(base.clone());
        }
        for ext in &extensions {
            let mut name = base.clone().into_os_string();
            name.push(ext.to_ascii_lowercase());
            names.push(PathBuf::from(name));
        }
        names
    };
    let has_directory = command.contains(['\\', '/']) || command.as_bytes().get(1) == Some(&b':');
    if has_directory {
        return candidates(PathBuf::from(command))
            .into_iter()
            .find(|candidate| is_file(candidate));
    }
    let path = path?.to_string_lossy().into_owned();
    path.split(';')
        // `PATH` entries may be quoted when they hold a `;`-free path with spaces.
        .map(|dir| dir.trim().trim_matches('"'))
        .filter(|dir| !dir.is_empty())
        .flat_map(|dir| candidates(Path::new(dir).join(command)))
        .find(|candidate| is_file(candidate))
}

/// The value of `name` in `env`, compared without case as Windows does (`Path` is `PATH`).
#[cfg_attr(
    not(windows),
    allow(dead_code, reason = "used on Windows; its unit tests run on every OS")
)]
pub(crate) fn env_value<'a>(
    env: &'a [(std::ffi::OsString, std::ffi::OsString)],
    name: &str,
) -> Option<&'a OsStr> {
    env.iter()
        .rev()
        .find(|(key, _)| key.to_string_lossy().eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_os_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn files(names: &[&str]) -> impl Fn(&Path) -> bool {
        let set: BTreeSet<PathBuf> = names.iter().map(PathBuf::from).collect();
        move |path: &Path| set.contains(path)
    }

    fn joined(dir: &str, name: &str) -> PathBuf {
        Path::new(dir).join(name)
    }

    #[test]
    fn npx_is_found_as_its_cmd_shim_in_path_order() {
        let path = OsStr::new(r"C:\Windows\system32;C:\Program Files\nodejs;C:\Users\u\.local\bin");
        let present = [joined(r"C:\Program Files\nodejs", "npx.cmd")];
        let present: Vec<&str> = present.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            find_on_windows("npx", Some(path), None, files(&present)),
            Some(joined(r"C:\Program Files\nodejs", "npx.cmd"))
        );
    }

    #[test]
    fn pathext_order_decides_within_a_directory_and_path_order_across_them() {
        let path = OsStr::new(r"C:\a;C:\b");
        let a_bat = joined(r"C:\a", "tool.bat");
        let a_exe = joined(r"C:\a", "tool.exe");
        let b_exe = joined(r"C:\b", "tool.exe");
        let present = [
            a_bat.to_str().unwrap(),
            a_exe.to_str().unwrap(),
            b_exe.to_str().unwrap(),
        ];
        // Default PATHEXT tries .EXE before .BAT.
        assert_eq!(
            find_on_windows("tool", Some(path), None, files(&present)),
            Some(a_exe.clone())
        );
        assert_eq!(
            find_on_windows(
                "tool",
                Some(path),
                Some(OsStr::new(".BAT;.EXE")),
                files(&present)
            ),
            Some(a_bat)
        );
        // An earlier directory wins over a better extension later on.
        let only_b_exe = [joined(r"C:\a", "tool.cmd"), b_exe.clone()];
        let only_b_exe: Vec<&str> = only_b_exe.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            find_on_windows("tool", Some(path), None, files(&only_b_exe)),
            Some(joined(r"C:\a", "tool.cmd"))
        );
    }

    #[test]
    fn a_command_with_its_extension_is_tried_as_written_first() {
        let path = OsStr::new(r"C:\uv");
        let exe = joined(r"C:\uv", "uvx.exe");
        let present = [exe.to_str().unwrap()];
        assert_eq!(
            find_on_windows("uvx.exe", Some(path), None, files(&present)),
            Some(exe.clone())
        );
        assert_eq!(
            find_on_windows("uvx", Some(path), None, files(&present)),
            Some(exe)
        );
    }

    #[test]
    fn a_command_with_a_directory_is_looked_up_only_there() {
        let path = OsStr::new(r"C:\elsewhere");
        let present = [r"D:\tools\server.cmd", r"C:\elsewhere\D:\tools\server.cmd"];
        assert_eq!(
            find_on_windows(r"D:\tools\server", Some(path), None, files(&present)),
            Some(PathBuf::from(r"D:\tools\server.cmd"))
        );
        assert_eq!(
            find_on_windows(r"D:\tools\server.cmd", None, None, files(&present)),
            Some(PathBuf::from(r"D:\tools\server.cmd"))
        );
        assert_eq!(
            find_on_windows(r".\missing", Some(path), None, files(&present)),
            None
        );
    }

    #[test]
    fn nothing_found_or_nothing_to_search_is_none() {
        assert_eq!(find_on_windows("npx", None, None, files(&[])), None);
        assert_eq!(
            find_on_windows("npx", Some(OsStr::new(";;")), None, files(&[])),
            None
        );
        assert_eq!(
            find_on_windows("", Some(OsStr::new(r"C:\a")), None, |_| true),
            None
        );
        // Quoted PATH entries are searched without their quotes.
        let present = [joined(r"C:\My Tools", "npx.cmd")];
        let present: Vec<&str> = present.iter().map(|p| p.to_str().unwrap()).collect();
        assert_eq!(
            find_on_windows(
                "npx",
                Some(OsStr::new(r#""C:\My Tools""#)),
                None,
                files(&present)
            ),
            Some(joined(r"C:\My Tools", "npx.cmd"))
        );
    }

    #[test]
    fn the_childs_path_is_read_without_case_the_last_setting_winning() {
        let env = vec![
            ("Path".into(), r"C:\inherited".into()),
            ("HOME".into(), "x".into()),
            ("PATH".into(), r"C:\configured".into()),
        ];
        assert_eq!(env_value(&env, "PATH"), Some(OsStr::new(r"C:\configured")));
        assert_eq!(env_value(&env, "pathext"), None);
    }
}
