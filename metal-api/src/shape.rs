//! The shapes of the spec's replies, generated from `openapi/metal.json` by
//! `cargo xtask generate`: each object schema of its components with its
//! property names (resolved through `$ref` and `allOf`, as the spec has
//! them), what each property holds, and each operation's success reply
//! schema. A test checks a reply against them both ways: no key its schema
//! lacks, and none of its keys missing; and as a strict client (one that
//! refuses a reply without a required property, a `null` the spec does not
//! allow, or an unknown key on a closed object) would read it.
//!
//! ```
//! use metal_api::shape;
//! let device = shape::find(shape::reply("findDeviceById").expect("has a body")).unwrap();
//! assert_eq!(device.name, "Device");
//! let state = device.property("state").unwrap();
//! assert!(state.values.contains(&"active"));
//! let plan = device.property("plan").unwrap();
//! assert_eq!((plan.shape, plan.array), (Some("Plan"), false));
//! // What a strict client refuses: a missing required property, an unknown
//! // key on a closed object.
//! let address = shape::find("Address").unwrap();
//! assert!(address.property("zip_code").unwrap().required);
//! assert!(!address.property("city").unwrap().required);
//! assert!(shape::find("IPReservation").unwrap().closed);
//! assert!(shape::find("BgpConfig").unwrap().property("md5").unwrap().nullable);
//! // `Device_metro` is `allOf` `Metro`: its properties are Metro's.
//! assert!(shape::find("Device_metro").unwrap().property("country").is_some());
//! ```

/// One object schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Its name among the spec's component schemas (`Device`).
    pub name: &'static str,
    /// The schemas it is one of (`oneOf` or `anyOf`), by name; empty for
    /// a schema with properties.
    pub one_of: &'static [&'static str],
    /// Whether it takes no property it does not list
    /// (`additionalProperties: false`).
    pub closed: bool,
    /// Its properties, sorted by name.
    pub properties: &'static [Property],
}

/// One property of a [`Shape`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its name (`created_at`).
    pub name: &'static str,
    /// The schema its value (or each item, for an array) is, by name; `None`
    /// for a scalar or a free-form object.
    pub shape: Option<&'static str>,
    /// Whether it is an array.
    pub array: bool,
    /// The values the spec knows for it (or each item), `enum` or
    /// `x-known-values`; empty when it names none.
    pub values: &'static [&'static str],
    /// Whether the schema requires it (its `required`, with its `allOf`
    /// parts').
    pub required: bool,
    /// Whether the spec allows it to be `null` (`nullable: true`).
    pub nullable: bool,
}

impl Shape {
    /// The property with this name.
    pub fn property(&self, name: &str) -> Option<&'static Property> {
        let properties: &'static [Property] = self.properties;
        properties
            .binary_search_by(|p| p.name.cmp(name))
            .ok()
            .map(|i| &properties[i])
    }
}

/// The schema with this name.
pub fn find(name: &str) -> Option<&'static Shape> {
    SHAPES
        .binary_search_by(|s| s.name.cmp(name))
        .ok()
        .map(|i| &SHAPES[i])
}

/// The name of the schema of `operation_id`'s success reply; `None` when it
/// has no body (or no such operation).
pub fn reply(operation_id: &str) -> Option<&'static str> {
    REPLIES
        .binary_search_by(|(id, _)| (*id).cmp(operation_id))
        .ok()
        .map(|i| REPLIES[i].1)
}

include!("generated/shapes.rs");
