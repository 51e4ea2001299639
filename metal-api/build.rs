//! Generates the Metal API client (and, with the `mock` feature, its httpmock
//! extension) from `../openapi/metal.json` into `OUT_DIR`.

use std::path::{Path, PathBuf};

fn main() {
    let spec_path = Path::new("../openapi/metal.json");
    println!("cargo:rerun-if-changed={}", spec_path.display());
    println!("cargo:rerun-if-changed=build.rs");

    // A build script reports failure by panicking; each message names the cause.
    let text = std::fs::read_to_string(spec_path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", spec_path.display()));
    let spec: openapiv3::OpenAPI = serde_json::from_str(&text).unwrap_or_else(|e| {
        panic!(
            "{} is not a valid OpenAPI 3.0 document: {e}",
            spec_path.display()
        )
    });

    let mut settings = progenitor::GenerationSettings::default();
    settings
        .with_interface(progenitor::InterfaceStyle::Builder)
        .with_tag(progenitor::TagStyle::Merged)
        .with_derive("schemars::JsonSchema")
        .with_derive("PartialEq");
    let mut generator = progenitor::Generator::new(&settings);

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let tokens = generator
        .generate_tokens(&spec)
        .unwrap_or_else(|e| panic!("progenitor failed on {}: {e}", spec_path.display()));
    write_rust(&out_dir.join("metal_api.rs"), tokens);

    if std::env::var_os("CARGO_FEATURE_MOCK").is_some() {
        let tokens = generator
            .httpmock(&spec, "crate")
            .unwrap_or_else(|e| panic!("progenitor's httpmock generator failed: {e}"));
        write_rust(&out_dir.join("metal_api_mock.rs"), tokens);
    }
}

fn write_rust(path: &Path, tokens: proc_macro2::TokenStream) {
    let file: syn::File = syn::parse2(tokens).expect("progenitor emits a valid Rust file");
    // progenitor's doc examples are fragments that cannot compile on their
    // own; mark them as text so rustdoc shows them without running them.
    let text = prettyplease::unparse(&file).replace("```ignore", "```text");
    std::fs::write(path, text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
