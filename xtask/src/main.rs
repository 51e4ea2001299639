//! `cargo xtask`: project automation.
//!
//! - `cargo xtask generate` writes `metal-api/src/generated/` (the client,
//!   its httpmock extension, the operation table and the reply shapes) from
//!   `openapi/metal.json`; `--check` fails, naming the stale files, when the
//!   committed ones are not what it would write. Needs only the repository.
//! - `cargo xtask spec [--from PATH]` derives `openapi/metal.json` from the
//!   upstream Metal API spec (YAML or JSON), then generates as above.
//!   `--check` fails, with a diff, when `openapi/metal.json` is not what
//!   that upstream spec produces, and skips, saying so, when the upstream
//!   file is absent. `PATH` defaults to [`DEFAULT_UPSTREAM`].
//! - `cargo xtask layers` prints the import graph of the library crates
//!   (files, arrows, circles, arrows running back up a layer); `--check`
//!   fails on a circle or an upward arrow without its reason (module
//!   [`layers`]).

mod generate;
mod layers;
mod patches;
mod refs;
mod spec;
mod table;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// Where the upstream spec is looked for, relative to the workspace root:
/// the team's copy of equinix-sdk-go's merged spec (see
/// `openapi/README.md`).
const DEFAULT_UPSTREAM: &str = "../shared/upstream/equinix-metal/openapi3.yaml";

#[derive(Parser)]
#[command(
    name = "cargo xtask",
    about = "Project automation for the Metal workspace"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Derive openapi/metal.json from the upstream Metal API spec, then
    /// generate the client from it.
    Spec {
        /// The upstream spec (OpenAPI 3.0, YAML or JSON); relative paths are
        /// from the current directory. Default:
        /// ../shared/upstream/equinix-metal/openapi3.yaml from the workspace
        /// root.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Compare instead of writing; exit non-zero on any difference, and
        /// skip (exit 0, saying so) when the upstream spec is absent.
        #[arg(long)]
        check: bool,
    },
    /// Generate metal-api/src/generated/ from openapi/metal.json.
    Generate {
        /// Compare instead of writing; exit non-zero on any difference.
        #[arg(long)]
        check: bool,
    },
    /// The library crates' import graphs: circles and upward arrows.
    Layers {
        /// Exit non-zero on a circle not allowed, or an upward arrow
        /// without its `// up:` reason.
        #[arg(long)]
        check: bool,
    },
}

fn workspace_root() -> PathBuf {
    // xtask lives one level below the workspace root.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(PathBuf::from).unwrap_or(manifest)
}

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("xtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<ExitCode> {
    let root = workspace_root();
    match Cli::parse().command {
        Command::Spec { from, check } => {
            let from = from.unwrap_or_else(|| root.join(DEFAULT_UPSTREAM));
            if check && !from.exists() {
                println!(
                    "skipped: {} is absent, so openapi/metal.json cannot be compared with it",
                    from.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            let code = spec_command(&root, &from, check)?;
            if check || code != ExitCode::SUCCESS {
                return Ok(code);
            }
            generate_command(&root, false)
        }
        Command::Generate { check } => generate_command(&root, check),
        Command::Layers { check } => layers_command(&root, check),
    }
}

fn spec_command(root: &Path, from: &Path, check: bool) -> Result<ExitCode> {
    let table_path = root.join("openapi/operations.txt");
    let out_path = root.join("openapi/metal.json");
    let upstream = std::fs::read_to_string(from)
        .with_context(|| format!("reading upstream spec {}", from.display()))?;
    let table = std::fs::read_to_string(&table_path)
        .with_context(|| format!("reading {}", table_path.display()))?;
    let generated = spec::generate(&upstream, &table)?;
    if !check {
        std::fs::write(&out_path, &generated)
            .with_context(|| format!("writing {}", out_path.display()))?;
        println!("wrote {} ({} bytes)", out_path.display(), generated.len());
        return Ok(ExitCode::SUCCESS);
    }
    let current = std::fs::read_to_string(&out_path).unwrap_or_default();
    if current == generated {
        println!("openapi/metal.json is up to date with {}", from.display());
        return Ok(ExitCode::SUCCESS);
    }
    eprintln!(
        "openapi/metal.json differs from what {} produces (run `cargo xtask spec --from {}`):",
        from.display(),
        from.display()
    );
    eprintln!("{}", spec::diff(&current, &generated));
    Ok(ExitCode::FAILURE)
}

fn layers_command(root: &Path, check: bool) -> Result<ExitCode> {
    let mut wrong = 0;
    let mut allowed_met = std::collections::BTreeSet::new();
    for krate in layers::CRATES {
        let graph = layers::Graph::read(root, krate)?;
        let f = graph.check()?;
        println!(
            "{krate}: {} files in {} folders; {} arrows between files, {} between folders; {} circles (two-way pairs); knots of {:?} files; {} arrows up ({} with a reason)",
            f.files,
            f.rooms,
            f.arrows,
            f.room_arrows,
            f.circles.len(),
            f.knots,
            f.explained_up.len() + f.unexplained_up.len(),
            f.explained_up.len()
        );
        for c in &f.circles {
            println!("  circle: {c}");
        }
        for a in &f.unexplained_up {
            println!("  up without a reason: {a}");
        }
        if !check {
            for a in &f.explained_up {
                println!("  up: {a}");
            }
        }
        wrong += f.circles.len() + f.unexplained_up.len();
        allowed_met.extend(f.allowed_met);
    }
    for (krate, files, _) in layers::ALLOWED_CIRCLES {
        if !allowed_met.contains(&(krate.to_string(), files.to_string())) {
            println!("  allowed circle no longer there (remove it from ALLOWED_CIRCLES): {krate}: {files}");
            wrong += 1;
        }
    }
    if check && wrong > 0 {
        eprintln!("{wrong} problem(s) in the import graphs (`cargo xtask layers` lists them)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn generate_command(root: &Path, check: bool) -> Result<ExitCode> {
    let spec_path = root.join("openapi/metal.json");
    let spec = std::fs::read_to_string(&spec_path)
        .with_context(|| format!("reading {}", spec_path.display()))?;
    let files = generate::generate(&spec)?;
    if check {
        let stale = generate::stale(root, &files);
        if stale.is_empty() {
            println!(
                "{} is up to date with openapi/metal.json",
                generate::OUT_DIR
            );
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{} is stale (run `cargo xtask generate`):\n{}",
            generate::OUT_DIR,
            stale.join("\n\n")
        );
        return Ok(ExitCode::FAILURE);
    }
    for file in &files {
        let path = generate::path(root, file);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        std::fs::write(&path, &file.text).with_context(|| format!("writing {}", path.display()))?;
        println!(
            "wrote {} ({} lines)",
            path.display(),
            file.text.lines().count()
        );
    }
    Ok(ExitCode::SUCCESS)
}
