//! Generates the Metal API client (and, with the `mock` feature, its httpmock
//! extension) from `../openapi/metal.json` into `OUT_DIR`, and the table of
//! every operation's facts (operationId, method, path, success status) that
//! the hook point, the policy and the fake read: `operations.rs`.

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
        .with_derive("PartialEq")
        // Every request passes `metal_api::exchange::Hooks`, our own
        // `ClientHooks` implementation (src/exchange.rs).
        .with_inner_type(quote::quote! { crate::exchange::Hooks })
        .with_hooks(progenitor::HooksMode::Expected);
    let mut generator = progenitor::Generator::new(&settings);

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));

    let tokens = generator
        .generate_tokens(&spec)
        .unwrap_or_else(|e| panic!("progenitor failed on {}: {e}", spec_path.display()));
    let client_text = write_rust(&out_dir.join("metal_api.rs"), tokens);
    write_operations(&spec, &client_text, &out_dir.join("operations.rs"));

    if std::env::var_os("CARGO_FEATURE_MOCK").is_some() {
        let tokens = generator
            .httpmock(&spec, "crate")
            .unwrap_or_else(|e| panic!("progenitor's httpmock generator failed: {e}"));
        write_rust(&out_dir.join("metal_api_mock.rs"), tokens);
    }
}

fn write_rust(path: &Path, tokens: proc_macro2::TokenStream) -> String {
    let file: syn::File = syn::parse2(tokens).expect("progenitor emits a valid Rust file");
    // progenitor's doc examples are fragments that cannot compile on their
    // own; mark them as text so rustdoc shows them without running them.
    let text = prettyplease::unparse(&file).replace("```ignore", "```text");
    std::fs::write(path, &text).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    text
}

/// One operation, as the table is written from it.
struct Op {
    konst: String,
    id: String,
    snake: String,
    variant: &'static str,
    route: String,
    success: u16,
}

/// Writes one `pub static NAME: Operation` per operation of the spec, `ALL`,
/// and the lookups by operationId and by the generated method's name (what
/// progenitor passes to the hooks as `OperationInfo::operation_id`).
fn write_operations(spec: &openapiv3::OpenAPI, client_text: &str, path: &Path) {
    use heck::{ToShoutySnakeCase, ToSnakeCase};
    use std::fmt::Write;

    let mut ops = Vec::new();
    for (route, item) in &spec.paths.paths {
        let openapiv3::ReferenceOr::Item(item) = item else {
            panic!("path {route} is a $ref; the spec subset inlines paths");
        };
        for (method, op) in item.iter() {
            let id = op
                .operation_id
                .clone()
                .unwrap_or_else(|| panic!("{method} {route} has no operationId"));
            let success = op
                .responses
                .responses
                .keys()
                .filter_map(|code| match code {
                    openapiv3::StatusCode::Code(c) if (200..300).contains(c) => Some(*c),
                    _ => None,
                })
                .min()
                .unwrap_or_else(|| panic!("{id} documents no 2xx response"));
            let snake = id.to_snake_case();
            // The hooks name an operation by progenitor's method name; make
            // sure ours is the same, or the lookup would silently miss.
            assert!(
                client_text.contains(&format!("operation_id: \"{snake}\"")),
                "progenitor names {id} other than {snake:?}"
            );
            let variant = match method {
                "get" => "Get",
                "put" => "Put",
                "post" => "Post",
                "delete" => "Delete",
                "patch" => "Patch",
                "head" => "Head",
                "options" => "Options",
                "trace" => "Trace",
                other => panic!("{id}: unsupported method {other}"),
            };
            ops.push(Op {
                konst: id.to_shouty_snake_case(),
                id,
                snake,
                variant,
                route: route.clone(),
                success,
            });
        }
    }
    ops.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out =
        String::from("// Generated by build.rs from openapi/metal.json; do not edit.\n\n");
    for Op {
        konst,
        id,
        variant,
        route,
        success,
        ..
    } in &ops
    {
        writeln!(
            out,
            "/// `{id}`: `{} {route}`, success {success}.\npub static {konst}: Operation = Operation {{ id: {id:?}, method: Method::{variant}, path: {route:?}, success: {success} }};",
            variant.to_uppercase()
        )
        .unwrap_or_default();
    }
    let all: Vec<String> = ops.iter().map(|o| format!("&{}", o.konst)).collect();
    writeln!(
        out,
        "\n/// Every operation of the spec, sorted by operationId.\npub static ALL: &[&Operation] = &[{}];",
        all.join(", ")
    )
    .unwrap_or_default();
    let arms = |key: fn(&Op) -> &str| {
        ops.iter()
            .map(|o| format!("{:?} => Some(&{}),", key(o), o.konst))
            .collect::<Vec<_>>()
            .join("\n        ")
    };
    writeln!(
        out,
        "\n/// The operation with this operationId.\npub fn find(operation_id: &str) -> Option<&'static Operation> {{\n    match operation_id {{\n        {}\n        _ => None,\n    }}\n}}",
        arms(|o| &o.id)
    )
    .unwrap_or_default();
    writeln!(
        out,
        "\n/// The operation whose generated method is named `method`.\npub(crate) fn by_method(method: &str) -> Option<&'static Operation> {{\n    match method {{\n        {}\n        _ => None,\n    }}\n}}",
        arms(|o| &o.snake)
    )
    .unwrap_or_default();
    std::fs::write(path, out).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
}
