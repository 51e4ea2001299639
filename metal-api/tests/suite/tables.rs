//! The generated tables: every operation of the spec once, with its
//! method, path and success status; the shapes' and replies' tables sorted
//! so that their lookups find every entry.

mod operations {
    use metal_api::operation::*;

    #[test]
    fn the_table_covers_the_spec_once_with_its_facts() {
        let spec: serde_json::Value = serde_json::from_str(include_str!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../openapi/metal.json"
        )))
        .expect("valid JSON");
        let mut count = 0;
        for (path, item) in spec["paths"].as_object().expect("paths") {
            for (method, op) in item.as_object().expect("path item") {
                let Some(id) = op["operationId"].as_str() else {
                    continue;
                };
                count += 1;
                let entry = find(id).unwrap_or_else(|| panic!("{id} missing"));
                assert_eq!(entry.path, path);
                assert_eq!(entry.method.as_str(), method.to_uppercase());
                let lowest_2xx = op["responses"]
                    .as_object()
                    .expect("responses")
                    .keys()
                    .filter_map(|k| k.parse::<u16>().ok())
                    .filter(|c| (200..300).contains(c))
                    .min();
                assert_eq!(Some(entry.success), lowest_2xx, "{id}");
            }
        }
        assert_eq!(ALL.len(), count);
        assert!(find("noSuchOperation").is_none());
        // The table by generated method name, which names each request's
        // operation, is crate-private: metal-policy's tests/every_operation.rs
        // checks every operation arrives under its own ID.
    }

    #[test]
    fn idempotency_follows_the_method() {
        assert!(DELETE_DEVICE.is_idempotent());
        assert!(UPDATE_DEVICE.is_idempotent());
        assert!(!PERFORM_ACTION.is_idempotent());
        assert!(!CREATE_SSH_KEY.is_idempotent());
    }
}

mod shapes {
    use metal_api::shape::*;

    #[test]
    fn the_tables_are_sorted_so_lookups_find_every_entry() {
        assert!(SHAPES.windows(2).all(|w| w[0].name < w[1].name));
        assert!(REPLIES.windows(2).all(|w| w[0].0 < w[1].0));
        for s in SHAPES {
            assert_eq!(find(s.name), Some(s));
            assert!(s.properties.windows(2).all(|w| w[0].name < w[1].name));
            for p in s.properties {
                assert_eq!(s.property(p.name), Some(p));
                // The spec's one schema that is no object (a list of
                // numbers) has no shape.
                if let Some(inner) = p.shape.filter(|n| *n != "SpotPricesDatapointsList") {
                    assert!(find(inner).is_some(), "{}.{} names {inner}", s.name, p.name);
                }
            }
        }
        for (id, name) in REPLIES {
            assert_eq!(reply(id), Some(*name));
            assert!(metal_api::operation::find(id).is_some(), "{id}");
        }
        assert_eq!(reply("deleteDevice"), None);
        assert_eq!(find("NoSuchSchema"), None);
    }
}
