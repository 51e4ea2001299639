module metal-fake/tests/clients

go 1.22

require (
	github.com/equinix/equinix-sdk-go v0.46.0
	github.com/packethost/packngo v0.31.0
	metal-fake/go/metalfake v0.0.0
)

// The harness of metal-fake/go/metalfake, from this checkout.
replace metal-fake/go/metalfake => ../../../go/metalfake
