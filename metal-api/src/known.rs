//! Typed views of values the spec leaves open, and query helpers.
//!
//! The spec subset keeps response enumerations open (see `cargo xtask spec`),
//! so the generated fields are plain strings that never fail to decode. The
//! types here give those strings a typed reading while keeping any value a
//! newer API sends.

use std::fmt;

macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $($(#[$vmeta:meta])* $variant:ident = $text:literal,)* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vmeta])* $variant,)*
            /// A value this version does not know; its text is kept.
            Other(String),
        }

        impl $name {
            /// Reads a value; unknown text becomes [`Self::Other`].
            pub fn parse(text: &str) -> Self {
                match text {
                    $($text => Self::$variant,)*
                    other => Self::Other(other.to_string()),
                }
            }

            /// The value as the API spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)*
                    Self::Other(text) => text,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                Self::parse(text)
            }
        }
    };
}

open_enum! {
    /// A device's lifecycle state (`Device.state`).
    ///
    /// ```
    /// use metal_api::DeviceState;
    /// assert_eq!(DeviceState::parse("active"), DeviceState::Active);
    /// let newer = DeviceState::parse("hibernating");
    /// assert_eq!(newer, DeviceState::Other("hibernating".into()));
    /// assert_eq!(newer.as_str(), "hibernating");
    /// ```
    DeviceState {
        /// Accepted, not yet provisioning.
        Queued = "queued",
        /// Being installed.
        Provisioning = "provisioning",
        /// Being torn down.
        Deprovisioning = "deprovisioning",
        /// Being reinstalled.
        Reinstalling = "reinstalling",
        /// Powered on and ready.
        Active = "active",
        /// Powered off.
        Inactive = "inactive",
        /// Provisioning failed.
        Failed = "failed",
        /// Powering on.
        PoweringOn = "powering_on",
        /// Powering off.
        PoweringOff = "powering_off",
        /// Deleted.
        Deleted = "deleted",
    }
}

impl crate::types::Device {
    /// The device's state as a typed value, when the reply carries one.
    pub fn state_kind(&self) -> Option<DeviceState> {
        self.state.as_deref().map(DeviceState::parse)
    }
}

/// Joins names for the comma-separated `include`/`exclude` query parameters.
///
/// ```
/// assert_eq!(metal_api::csv(["device", "facility"]), "device,facility");
/// ```
pub fn csv<I, S>(items: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item.as_ref());
    }
    out
}
