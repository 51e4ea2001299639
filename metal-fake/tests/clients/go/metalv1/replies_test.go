// Every reply the Rust walk of every read (`replies_both_ways` in the
// suite) checked, decoded with metalv1's own models, as a strict client
// reads them: a reply without a required property, with an enum value
// outside the spec, or with a key beyond IPReservation's fails its
// decoder. The replies come from the file METAL_FAKE_REPLIES names, which
// the walk writes:
//
//	METAL_FAKE_WRITE_REPLIES=/tmp/replies.jsonl cargo test -p metal-fake \
//	    --all-features --test suite -- replies_both_ways::every
//	cd metal-fake/tests/clients/go && METAL_FAKE_REPLIES=/tmp/replies.jsonl \
//	    GOWORK=off go test -count=1 -run '^TestRepliesDecode$' ./metalv1
//
// The replies metalv1 refuses are exactly those of [knownRefusal], each as the
// real API sent it (see metal_fake::fidelity, "Replies checked both ways").
package metalv1_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/equinix/equinix-sdk-go/services/metalv1"
)

// replyDecoder decodes a reply as a T, as metalv1's API methods do.
func replyDecoder[T any]() func([]byte) error {
	return func(b []byte) error {
		var v T
		return json.Unmarshal(b, &v)
	}
}

// decoders by the name of the spec's reply schema.
var replyDecoders = map[string]func([]byte) error{
	"AuthTokenList":                     replyDecoder[metalv1.AuthTokenList](),
	"Batch":                             replyDecoder[metalv1.Batch](),
	"BatchesList":                       replyDecoder[metalv1.BatchesList](),
	"BgpConfig":                         replyDecoder[metalv1.BgpConfig](),
	"BgpDynamicNeighbor":                replyDecoder[metalv1.BgpDynamicNeighbor](),
	"BgpDynamicNeighborList":            replyDecoder[metalv1.BgpDynamicNeighborList](),
	"BgpSession":                        replyDecoder[metalv1.BgpSession](),
	"BgpSessionList":                    replyDecoder[metalv1.BgpSessionList](),
	"BgpSessionNeighbors":               replyDecoder[metalv1.BgpSessionNeighbors](),
	"CapacityList":                      replyDecoder[metalv1.CapacityList](),
	"Device":                            replyDecoder[metalv1.Device](),
	"DeviceHealthRollup":                replyDecoder[metalv1.DeviceHealthRollup](),
	"DeviceList":                        replyDecoder[metalv1.DeviceList](),
	"DeviceUsageList":                   replyDecoder[metalv1.DeviceUsageList](),
	"Email":                             replyDecoder[metalv1.Email](),
	"Event":                             replyDecoder[metalv1.Event](),
	"EventList":                         replyDecoder[metalv1.EventList](),
	"FacilityList":                      replyDecoder[metalv1.FacilityList](),
	"FirmwareSetListResponse":           replyDecoder[metalv1.FirmwareSetListResponse](),
	"GlobalBgpRangeList":                replyDecoder[metalv1.GlobalBgpRangeList](),
	"HardwareReservation":               replyDecoder[metalv1.HardwareReservation](),
	"HardwareReservationList":           replyDecoder[metalv1.HardwareReservationList](),
	"IPAssignmentList":                  replyDecoder[metalv1.IPAssignmentList](),
	"IPAvailabilitiesList":              replyDecoder[metalv1.IPAvailabilitiesList](),
	"IPReservationList":                 replyDecoder[metalv1.IPReservationList](),
	"Interconnection":                   replyDecoder[metalv1.Interconnection](),
	"InterconnectionList":               replyDecoder[metalv1.InterconnectionList](),
	"InterconnectionMetroList":          replyDecoder[metalv1.InterconnectionMetroList](),
	"InterconnectionPort":               replyDecoder[metalv1.InterconnectionPort](),
	"InterconnectionPortList":           replyDecoder[metalv1.InterconnectionPortList](),
	"InterconnectionPricingList":        replyDecoder[metalv1.InterconnectionPricingList](),
	"Invitation":                        replyDecoder[metalv1.Invitation](),
	"InvitationList":                    replyDecoder[metalv1.InvitationList](),
	"InvoiceList":                       replyDecoder[metalv1.InvoiceList](),
	"License":                           replyDecoder[metalv1.License](),
	"LicenseList":                       replyDecoder[metalv1.LicenseList](),
	"Membership":                        replyDecoder[metalv1.Membership](),
	"MembershipList":                    replyDecoder[metalv1.MembershipList](),
	"Metadata":                          replyDecoder[metalv1.Metadata](),
	"MetalGatewayList":                  replyDecoder[metalv1.MetalGatewayList](),
	"Metro":                             replyDecoder[metalv1.Metro](),
	"MetroList":                         replyDecoder[metalv1.MetroList](),
	"OperatingSystemList":               replyDecoder[metalv1.OperatingSystemList](),
	"Organization":                      replyDecoder[metalv1.Organization](),
	"OrganizationList":                  replyDecoder[metalv1.OrganizationList](),
	"PaymentMethod":                     replyDecoder[metalv1.PaymentMethod](),
	"PaymentMethodList":                 replyDecoder[metalv1.PaymentMethodList](),
	"PlanList":                          replyDecoder[metalv1.PlanList](),
	"Port":                              replyDecoder[metalv1.Port](),
	"PortVlanAssignment":                replyDecoder[metalv1.PortVlanAssignment](),
	"PortVlanAssignmentBatch":           replyDecoder[metalv1.PortVlanAssignmentBatch](),
	"PortVlanAssignmentBatchList":       replyDecoder[metalv1.PortVlanAssignmentBatchList](),
	"PortVlanAssignmentList":            replyDecoder[metalv1.PortVlanAssignmentList](),
	"Project":                           replyDecoder[metalv1.Project](),
	"ProjectList":                       replyDecoder[metalv1.ProjectList](),
	"ProjectUsageList":                  replyDecoder[metalv1.ProjectUsageList](),
	"SSHKey":                            replyDecoder[metalv1.SSHKey](),
	"SSHKeyList":                        replyDecoder[metalv1.SSHKeyList](),
	"SelfServiceReservationList":        replyDecoder[metalv1.SelfServiceReservationList](),
	"SelfServiceReservationResponse":    replyDecoder[metalv1.SelfServiceReservationResponse](),
	"SpotMarketPricesList":              replyDecoder[metalv1.SpotMarketPricesList](),
	"SpotMarketPricesPerMetroList":      replyDecoder[metalv1.SpotMarketPricesPerMetroList](),
	"SpotMarketRequest":                 replyDecoder[metalv1.SpotMarketRequest](),
	"SpotMarketRequestList":             replyDecoder[metalv1.SpotMarketRequestList](),
	"SpotPricesHistoryReport":           replyDecoder[metalv1.SpotPricesHistoryReport](),
	"TransferRequest":                   replyDecoder[metalv1.TransferRequest](),
	"TransferRequestList":               replyDecoder[metalv1.TransferRequestList](),
	"User":                              replyDecoder[metalv1.User](),
	"UserList":                          replyDecoder[metalv1.UserList](),
	"Userdata":                          replyDecoder[metalv1.Userdata](),
	"VirtualCircuit":                    replyDecoder[metalv1.VirtualCircuit](),
	"VirtualCircuitList":                replyDecoder[metalv1.VirtualCircuitList](),
	"VirtualNetwork":                    replyDecoder[metalv1.VirtualNetwork](),
	"VirtualNetworkList":                replyDecoder[metalv1.VirtualNetworkList](),
	"Vrf":                               replyDecoder[metalv1.Vrf](),
	"VrfBGPNeighborsList":               replyDecoder[metalv1.VrfBGPNeighborsList](),
	"VrfIpReservation":                  replyDecoder[metalv1.VrfIpReservation](),
	"VrfIpReservationList":              replyDecoder[metalv1.VrfIpReservationList](),
	"VrfLearnedRoutesList":              replyDecoder[metalv1.VrfLearnedRoutesList](),
	"VrfList":                           replyDecoder[metalv1.VrfList](),
	"VrfRoute":                          replyDecoder[metalv1.VrfRoute](),
	"VrfRouteList":                      replyDecoder[metalv1.VrfRouteList](),
	"findIPAddressById_200_response":    replyDecoder[metalv1.FindIPAddressById200Response](),
	"findMetalGatewayById_200_response": replyDecoder[metalv1.FindMetalGatewayById200Response](),
}

// knownRefusal says, of a read metalv1 cannot decode, why: the real API sent
// it so too. Any other refusal fails the test, and so does a read listed
// here that decodes.
func knownRefusal(operation, path string) string {
	switch {
	case operation == "findSpotMarketRequestById" || operation == "listSpotMarketRequests":
		return "the spec types facilities as one Href; the real API sent a list (packngo's SpotMarketRequest.Facilities)"
	case (operation == "findMetalGatewayById" || operation == "findMetalGatewaysByProject") &&
		!strings.Contains(path, "include=ip_reservation"):
		return "ip_reservation is an href unless included, and IPReservation requires type: metal-cli includes it"
	}
	return ""
}

func TestRepliesDecode(t *testing.T) {
	file := os.Getenv("METAL_FAKE_REPLIES")
	if file == "" {
		t.Fatal("METAL_FAKE_REPLIES names no file: write one with METAL_FAKE_WRITE_REPLIES (see this file's comment)")
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 1<<20), 1<<26)
	decoded, excused := 0, 0
	for lines.Scan() {
		var row struct {
			Operation string          `json:"operation"`
			Path      string          `json:"path"`
			Schema    string          `json:"schema"`
			Body      json.RawMessage `json:"body"`
		}
		if err := json.Unmarshal(lines.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		decode, ok := replyDecoders[row.Schema]
		if !ok {
			t.Errorf("%s %s: no decoder for %s", row.Operation, row.Path, row.Schema)
			continue
		}
		err := decode(row.Body)
		why := knownRefusal(row.Operation, row.Path)
		switch {
		case err != nil && why == "":
			t.Errorf("%s %s: metalv1 refuses it as %s: %v", row.Operation, row.Path, row.Schema, err)
		case err == nil && why != "":
			t.Errorf("%s %s: decodes, though listed as refused (%s)", row.Operation, row.Path, why)
		case err != nil:
			excused++
		default:
			decoded++
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if decoded+excused < 100 {
		t.Fatalf("only %d replies in %s", decoded+excused, file)
	}
	t.Logf("%d replies decoded, %d refused as listed", decoded, excused)
}
