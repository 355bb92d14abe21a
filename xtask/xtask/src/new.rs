//! `cargo xtask new <name> [--dir <parent>]`: a standalone project of your own, `<parent>/<name>/`,
//! made from the `examples/dot` template.
//!
//! The template's files are embedded in this binary. The copy renames `dot` to `<name>` (package
//! names, the kernel crate's library name `dot_kernels` -> `<name>_kernels`, the
//! `include_kernels!` argument, the `use` lines and paths) and points the path dependencies at this
//! checkout, absolutely. Its root `Cargo.toml` is both the host package and the workspace of it and
//! its kernel crate (`kernels/`).
use std::path::Path;
use std::process::ExitCode;

/// One file of the template: where it goes in the new project, and its text.
struct TemplateFile {
    path: &'static str,
    text: &'static str,
}

/// The `examples/dot` files, as the new project lays them out (the root `Cargo.toml` is made
/// from [`HOST_MANIFEST`] and [`EXAMPLES_MANIFEST`]).
const TEMPLATE: &[TemplateFile] = &[
    TemplateFile {
        path: "rust-toolchain.toml",
        text: include_str!("../../../examples/rust-toolchain.toml"),
    },
    TemplateFile {
        path: "build.rs",
        text: include_str!("../../../examples/dot/build.rs"),
    },
    TemplateFile {
        path: "src/lib.rs",
        text: include_str!("../../../examples/dot/src/lib.rs"),
    },
    TemplateFile {
        path: "src/main.rs",
        text: include_str!("../../../examples/dot/src/main.rs"),
    },
    TemplateFile {
        path: "tests/simulator.rs",
        text: include_str!("../../../examples/dot/tests/simulator.rs"),
    },
    TemplateFile {
        path: "kernels/Cargo.toml",
        text: include_str!("../../../examples/dot/kernels/Cargo.toml"),
    },
    TemplateFile {
        path: "kernels/src/lib.rs",
        text: include_str!("../../../examples/dot/kernels/src/lib.rs"),
    },
];

/// The host package's manifest.
const HOST_MANIFEST: &str = include_str!("../../../examples/dot/Cargo.toml");
/// The examples' workspace manifest, whose lint tables the new workspace copies.
const EXAMPLES_MANIFEST: &str = include_str!("../../../examples/Cargo.toml");

/// Names a crate cannot take: Rust's keywords (the library name is used in `use` lines) and the
/// crates of the toolchain and of ferrocuda.
const RESERVED: &str = "as async await break const continue crate dyn else enum extern false fn for gen if impl in \
    let loop match mod move mut pub ref return self static struct super trait true type unsafe use where while \
    abstract become box do final macro override priv try typeof unsized virtual yield alloc core std proc_macro test";

/// Runs `new` with the arguments after it.
pub fn run(name: &str, parent: &Path) -> Result<ExitCode, String> {
    validate_name(name)?;
    if !parent.is_dir() {
        return Err(format!("the folder `{}` does not exist", parent.display()));
    }
    let dir = parent.join(name);
    if dir.symlink_metadata().is_ok() {
        return Err(format!(
            "`{}` already exists: choose another name or --dir",
            dir.display()
        ));
    }
    let repo = crate::workspace_root()?;
    let files = render(name, repo)?;
    std::fs::create_dir(&dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    if let Err(message) = write_all(&dir, &files) {
        // Leave nothing half-made behind: the folder is new, and only this command wrote in it.
        let _ = std::fs::remove_dir_all(&dir);
        return Err(message);
    }
    let snake = name.replace('-', "_");
    println!(
        "created {}: package `{name}` (library `{snake}`), kernel crate `{name}-kernels` (library `{snake}_kernels`) in kernels/",
        dir.display()
    );
    println!(
        "  cd {} && cargo run      # on GPU 0, or on the CPU simulator without one",
        dir.display()
    );
    println!("  cargo test                # on the CPU simulator");
    println!(
        "Path dependencies point at {}; keep the checkout there.",
        repo.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `<name> [--dir <parent>]`, in either order; the parent defaults to the current directory.
/// A cargo package name whose library name works in `use` lines: ASCII letters, digits, `-` and
/// `_`, starting with a letter, and not a keyword or a crate it would clash with.
fn validate_name(name: &str) -> Result<(), String> {
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err(format!("the project name `{name}` must start with an ASCII letter"));
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        return Err(format!(
            "the project name `{name}` may hold only ASCII letters, digits, `-` and `_`, not `{c}`"
        ));
    }
    let snake = name.replace('-', "_");
    if RESERVED.split_whitespace().any(|word| word == snake) || snake.starts_with("ferrocuda") {
        return Err(format!(
            "the project name `{name}` is a Rust keyword or the name of a crate it would depend on: choose another"
        ));
    }
    Ok(())
}

/// The new project's files, `(path, text)`, for `name` and the checkout at `repo`.
fn render(name: &str, repo: &Path) -> Result<Vec<(String, String)>, String> {
    let rename = Rename::new(name, repo);
    let mut files = vec![
        ("Cargo.toml".to_string(), rename.root_manifest()?),
        (".gitignore".to_string(), "target/\n".to_string()),
    ];
    for file in TEMPLATE {
        let text = match file.path {
            "kernels/Cargo.toml" => rename.kernel_manifest(file.text)?,
            _ => rename.source(file.text),
        };
        files.push((file.path.to_string(), text));
    }
    Ok(files)
}

/// Writes `files` under `dir`, making their folders.
fn write_all(dir: &Path, files: &[(String, String)]) -> Result<(), String> {
    for (path, text) in files {
        let path = dir.join(path);
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).map_err(|e| format!("cannot create `{}`: {e}", folder.display()))?;
        }
        std::fs::write(&path, text).map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// The renaming of the template for one project.
struct Rename {
    /// The package name, `my-app`.
    name: String,
    /// Its library name, `my_app`.
    snake: String,
    /// The checkout's root, as a TOML string's contents.
    repo: String,
}

impl Rename {
    fn new(name: &str, repo: &Path) -> Self {
        let repo = repo.display().to_string().replace('\\', "\\\\").replace('"', "\\\"");
        Self {
            name: name.to_string(),
            snake: name.replace('-', "_"),
            repo,
        }
    }

    /// A Rust file of the template: the kernel crate's names, and the host library's name where
    /// it is a path (`dot::`), or the program's (`dot [n]`, `dot takes`).
    fn source(&self, text: &str) -> String {
        let text = text
            .replace("dot_kernels", &format!("{}_kernels", self.snake))
            .replace("dot-kernels", &format!("{}-kernels", self.name))
            .replace("`dot [n]`", &format!("`{} [n]`", self.name))
            .replace("\"dot takes", &format!("\"{} takes", self.name));
        replace_path_root(&text, "dot", &self.snake)
    }

    /// The kernel crate's manifest: its package name and the device library's absolute path.
    fn kernel_manifest(&self, text: &str) -> Result<String, String> {
        let text = replace_required(
            text,
            "name = \"dot-kernels\"",
            &format!("name = \"{}-kernels\"", self.name),
        )?;
        replace_required(
            &text,
            "path = \"../../../gpu-kernels/ferrocuda-device\"",
            &format!("path = \"{}/gpu-kernels/ferrocuda-device\"", self.repo),
        )
    }

    /// The root manifest: the host package (renamed, absolute paths), and the workspace of it and
    /// its kernel crate, with the examples' lints and debug-profile overrides.
    fn root_manifest(&self) -> Result<String, String> {
        let package = [
            ("name = \"dot\"", format!("name = \"{}\"", self.name)),
            ("dot-kernels = ", format!("{}-kernels = ", self.name)),
            (
                "path = \"../../host/ferrocuda\"",
                format!("path = \"{}/host/ferrocuda\"", self.repo),
            ),
            (
                "path = \"../../host/ferrocuda-builder\"",
                format!("path = \"{}/host/ferrocuda-builder\"", self.repo),
            ),
        ]
        .iter()
        .try_fold(HOST_MANIFEST.to_string(), |text, (from, to)| {
            replace_required(&text, from, to)
        })?;
        let lints = EXAMPLES_MANIFEST
            .find("[workspace.lints")
            .map(|at| &EXAMPLES_MANIFEST[at..])
            .ok_or("the template examples/Cargo.toml has no [workspace.lints] tables")?;
        // The lints and the debug profile's overrides, for this project's kernel crate only.
        let lints = replace_required(lints, "\n[profile.dev.package.vecadd-kernels]\nopt-level = 3\n", "")?;
        let lints = replace_required(
            &lints,
            "[profile.dev.package.dot-kernels]",
            &format!("[profile.dev.package.{}-kernels]", self.name),
        )?;
        Ok(format!(
            "{package}\n# This package and its kernel crate, built to PTX by build.rs.\n[workspace]\nresolver = \"3\"\nmembers = [\".\", \"kernels\"]\n\n{lints}"
        ))
    }
}

/// `text` with every `from` replaced by `to`; an error when the template holds no `from` (it has
/// changed under this command).
fn replace_required(text: &str, from: &str, to: &str) -> Result<String, String> {
    if text.contains(from) {
        Ok(text.replace(from, to))
    } else {
        Err(format!(
            "the examples/dot template no longer contains `{from}`: update xtask/xtask/src/new.rs"
        ))
    }
}

/// `text` with the identifier `from` replaced by `to` where it starts a path (`from::`).
fn replace_path_root(text: &str, from: &str, to: &str) -> String {
    let pattern = format!("{from}::");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(&pattern) {
        let before = rest[..at].chars().next_back();
        let starts_identifier = !before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.'));
        out += &rest[..at];
        out += if starts_identifier { to } else { from };
        out += "::";
        rest = &rest[at + pattern.len()..];
    }
    out + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_renders_with_no_trace_of_its_name_or_relative_paths() {
        let files = render("my-app", Path::new("/repo")).unwrap();
        for (path, text) in &files {
            for stale in ["dot_kernels", "dot-kernels", "dot::", "\"../"] {
                assert!(!text.contains(stale), "{path} still holds `{stale}`");
            }
        }
        let root = &files.iter().find(|(p, _)| p == "Cargo.toml").unwrap().1;
        assert!(root.contains("name = \"my-app\"") && root.contains("members = [\".\", \"kernels\"]"));
        assert!(root.contains("path = \"/repo/host/ferrocuda\""));
        // Debug builds optimise the project's kernel crate and the dependencies (the simulator).
        assert!(root.contains("[profile.dev.package.my-app-kernels]\nopt-level = 3"));
        assert!(root.contains("[profile.dev.package.\"*\"]\nopt-level = 3"));
        assert!(!root.contains("vecadd"));
        let tests = &files.iter().find(|(p, _)| p == "tests/simulator.rs").unwrap().1;
        assert!(tests.contains("my_app::dot(") && tests.contains("use my_app::kernels::"));
    }

    #[test]
    fn names_are_validated() {
        for good in ["my-app", "a", "App_2"] {
            assert!(validate_name(good).is_ok(), "{good}");
        }
        for bad in ["", "2app", "-app", "my app", "my.app", "fn", "test", "ferrocuda-x", "é"] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_path_roots_are_renamed() {
        assert_eq!(
            replace_path_root("use dot::kernels; dot::dot(x); x.dot::<f32>(); a::dot::b", "dot", "app"),
            "use app::kernels; app::dot(x); x.dot::<f32>(); a::dot::b"
        );
    }
}
