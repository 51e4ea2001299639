//! `cargo xtask`: project automation.
//!
//! - `cargo xtask spec --from PATH` regenerates `openapi/metal.json` from an
//!   upstream Metal API spec (YAML or JSON).
//! - `cargo xtask spec --check --from PATH` fails, with a diff, when
//!   `openapi/metal.json` is not what that upstream spec produces.

mod patches;
mod refs;
mod spec;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

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
    /// Derive openapi/metal.json from the upstream Metal API spec.
    Spec {
        /// The upstream spec (OpenAPI 3.0, YAML or JSON).
        #[arg(long)]
        from: PathBuf,
        /// Compare instead of writing; exit non-zero on any difference.
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
    let cli = Cli::parse();
    match cli.command {
        Command::Spec { from, check } => {
            let root = workspace_root();
            let list_path = root.join("openapi/operations.txt");
            let out_path = root.join("openapi/metal.json");
            let upstream = std::fs::read_to_string(&from)
                .with_context(|| format!("reading upstream spec {}", from.display()))?;
            let list = std::fs::read_to_string(&list_path)
                .with_context(|| format!("reading {}", list_path.display()))?;
            let generated = spec::generate(&upstream, &list)?;
            if check {
                let current = std::fs::read_to_string(&out_path).unwrap_or_default();
                if current == generated {
                    println!("openapi/metal.json is up to date with {}", from.display());
                    Ok(ExitCode::SUCCESS)
                } else {
                    eprintln!(
                        "openapi/metal.json differs from what {} produces \
                         (run `cargo xtask spec --from {}`):",
                        from.display(),
                        from.display()
                    );
                    eprintln!("{}", spec::diff(&current, &generated));
                    Ok(ExitCode::FAILURE)
                }
            } else {
                std::fs::write(&out_path, &generated)
                    .with_context(|| format!("writing {}", out_path.display()))?;
                println!("wrote {} ({} bytes)", out_path.display(), generated.len());
                Ok(ExitCode::SUCCESS)
            }
        }
    }
}
