//! What the real API's catalog said of its well-known metros, plans and
//! operating systems (as of 2024): the names, countries, specs and prices
//! a world document's entry takes when it gives only a code or a slug.
//! Facts only; a world document may say otherwise for any of them.

/// A metro's name and country (ISO 3166 alpha-2), by code.
pub(super) const METROS: &[(&str, &str, &str)] = &[
    ("am", "Amsterdam", "NL"),
    ("at", "Atlanta", "US"),
    ("ch", "Chicago", "US"),
    ("da", "Dallas", "US"),
    ("dc", "Washington DC", "US"),
    ("fr", "Frankfurt", "DE"),
    ("hk", "Hong Kong", "HK"),
    ("la", "Los Angeles", "US"),
    ("ld", "London", "GB"),
    ("md", "Madrid", "ES"),
    ("me", "Melbourne", "AU"),
    ("ml", "Milan", "IT"),
    ("mt", "Montreal", "CA"),
    ("ny", "New York", "US"),
    ("os", "Osaka", "JP"),
    ("pa", "Paris", "FR"),
    ("se", "Seattle", "US"),
    ("sg", "Singapore", "SG"),
    ("sl", "Seoul", "KR"),
    ("sp", "Sao Paulo", "BR"),
    ("st", "Stockholm", "SE"),
    ("sv", "Silicon Valley", "US"),
    ("sy", "Sydney", "AU"),
    ("tr", "Toronto", "CA"),
    ("ty", "Tokyo", "JP"),
];

/// The name and country of the metro with this code.
pub(super) fn metro(code: &str) -> Option<(&'static str, &'static str)> {
    METROS
        .iter()
        .find(|(c, _, _)| *c == code)
        .map(|(_, name, country)| (*name, *country))
}

/// One plan's facts.
pub(super) struct KnownPlan {
    pub(super) slug: &'static str,
    /// Its processors: (count, type).
    pub(super) cpus: &'static [(u32, &'static str)],
    /// Its memory (`32GB`).
    pub(super) memory: &'static str,
    /// Its drives: (count, size, type, category).
    pub(super) drives: &'static [(u32, &'static str, &'static str, &'static str)],
    /// Its network interfaces: (count, type).
    pub(super) nics: &'static [(u32, &'static str)],
    /// Its on-demand price, US dollars an hour.
    pub(super) hour: f64,
}

/// The current plans of 2024.
pub(super) const PLANS: &[KnownPlan] = &[
    KnownPlan {
        slug: "c3.small.x86",
        cpus: &[(1, "Intel Xeon E-2278G 8-Core Processor @ 3.40GHz")],
        memory: "32GB",
        drives: &[(2, "480GB", "SSD", "boot")],
        nics: &[(2, "10Gbps")],
        hour: 0.75,
    },
    KnownPlan {
        slug: "c3.medium.x86",
        cpus: &[(1, "AMD EPYC 7402P 24-Core Processor @ 2.8GHz")],
        memory: "64GB",
        drives: &[(2, "240GB", "SSD", "boot"), (2, "480GB", "SSD", "storage")],
        nics: &[(2, "10Gbps")],
        hour: 1.5,
    },
    KnownPlan {
        slug: "m3.small.x86",
        cpus: &[(1, "Intel Xeon E-2378G 8-Core Processor @ 2.80GHz")],
        memory: "64GB",
        drives: &[(2, "480GB", "SSD", "boot")],
        nics: &[(2, "25Gbps")],
        hour: 1.05,
    },
    KnownPlan {
        slug: "m3.large.x86",
        cpus: &[(1, "AMD EPYC 7502P 32-Core Processor @ 2.5GHz")],
        memory: "256GB",
        drives: &[(2, "240GB", "SSD", "boot"), (2, "3.8TB", "NVMe", "storage")],
        nics: &[(2, "25Gbps")],
        hour: 3.1,
    },
    KnownPlan {
        slug: "s3.xlarge.x86",
        cpus: &[(2, "Intel Xeon Silver 4214 12-Core Processor @ 2.2GHz")],
        memory: "192GB",
        drives: &[
            (2, "960GB", "SSD", "boot"),
            (2, "240GB", "SSD", "cache"),
            (12, "8TB", "HDD", "storage"),
        ],
        nics: &[(2, "25Gbps")],
        hour: 2.95,
    },
    KnownPlan {
        slug: "n3.xlarge.x86",
        cpus: &[(2, "Intel Xeon Gold 6314U 32-Core Processor @ 2.3GHz")],
        memory: "512GB",
        drives: &[(2, "240GB", "SSD", "boot"), (4, "3.8TB", "NVMe", "storage")],
        nics: &[(4, "25Gbps")],
        hour: 4.5,
    },
];

/// The facts of the plan with this slug.
pub(super) fn plan(slug: &str) -> Option<&'static KnownPlan> {
    PLANS.iter().find(|p| p.slug == slug)
}

/// An operating system's name and whether it needs a license, by slug.
pub(super) const OPERATING_SYSTEMS: &[(&str, &str, bool)] = &[
    ("alma_9", "AlmaLinux 9", false),
    ("centos_7", "CentOS 7", false),
    ("custom_ipxe", "Custom iPXE", false),
    ("debian_11", "Debian 11", false),
    ("debian_12", "Debian 12", false),
    ("flatcar_stable", "Flatcar Container Linux (Stable)", false),
    ("rhel_9", "RHEL 9", true),
    ("rocky_8", "Rocky Linux 8", false),
    ("rocky_9", "Rocky Linux 9", false),
    ("ubuntu_20_04", "Ubuntu 20.04 LTS", false),
    ("ubuntu_22_04", "Ubuntu 22.04 LTS", false),
    ("ubuntu_24_04", "Ubuntu 24.04 LTS", false),
    ("windows_2022", "Windows 2022 Standard", true),
];

/// The name and licensing of the operating system with this slug.
pub(super) fn operating_system(slug: &str) -> Option<(&'static str, bool)> {
    OPERATING_SYSTEMS
        .iter()
        .find(|(s, _, _)| *s == slug)
        .map(|(_, name, licensed)| (*name, *licensed))
}
