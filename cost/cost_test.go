package cost

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestParseBilling(t *testing.T) {
	for in, want := range map[string]Billing{"": OnDemand, "on-demand": OnDemand, " On-Demand ": OnDemand, "editions": Editions, "EDITIONS": Editions} {
		got, err := ParseBilling(in)
		if err != nil || got != want {
			t.Errorf("ParseBilling(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"flat-rate", "ondemand", "enterprise"} {
		if _, err := ParseBilling(in); err == nil || !strings.Contains(err.Error(), "on-demand or editions") {
			t.Errorf("ParseBilling(%q) = %v, want an error naming the choices", in, err)
		}
	}
}

// The table holds the multi-regions and the US regions priced like them,
// and nothing it is not sure of.
func TestTable(t *testing.T) {
	for _, loc := range []string{"US", "us", "EU", "eu", "us-central1", "US-EAST1", "us-east4", "us-west1"} {
		if p, ok := TablePerTiB(loc); !ok || p != 6.25 {
			t.Errorf("TablePerTiB(%q) = %v, %v; want 6.25", loc, p, ok)
		}
	}
	for _, loc := range []string{"", "europe-west2", "asia-northeast1", "southamerica-east1", "us-west2", "mars-north1"} {
		if p, ok := TablePerTiB(loc); ok {
			t.Errorf("TablePerTiB(%q) = %v: the table must not price it", loc, p)
		}
	}
	if SourceTable != "table "+TableDate || !strings.HasPrefix(TableSource, "https://cloud.google.com/bigquery/pricing") {
		t.Errorf("source %q, %q", SourceTable, TableSource)
	}
}

func TestPricesFor(t *testing.T) {
	ps := Prices{PricePerTiB: 5, PricePerTiBByLocation: map[string]float64{"europe-west2": 7.82, "us": 4}, SlotHourPrice: 0.06}
	for _, c := range []struct {
		loc  string
		want Price
	}{
		// The flag's location wins over the table.
		{"US", Price{Billing: OnDemand, Location: "US", PerTiBUSD: 4, Source: SourceByLocation}},
		{"Europe-West2", Price{Billing: OnDemand, Location: "Europe-West2", PerTiBUSD: 7.82, Source: SourceByLocation}},
		// The table, where the flag says nothing.
		{"EU", Price{Billing: OnDemand, Location: "EU", PerTiBUSD: 6.25, Source: SourceTable}},
		{"us-central1", Price{Billing: OnDemand, Location: "us-central1", PerTiBUSD: 6.25, Source: SourceTable}},
		// Neither: --price-per-tib, and the answer says so.
		{"asia-northeast1", Price{Billing: OnDemand, Location: "asia-northeast1", PerTiBUSD: 5, Source: SourceFlag}},
		{"", Price{Billing: OnDemand, PerTiBUSD: 5, Source: SourceFlag}},
		{" ", Price{Billing: OnDemand, PerTiBUSD: 5, Source: SourceFlag}},
	} {
		if got := ps.For(c.loc); got != c.want {
			t.Errorf("For(%q) = %+v, want %+v", c.loc, got, c.want)
		}
	}
	// The zero Billing is on demand.
	if got := (Prices{}).For("US"); got.Billing != OnDemand || got.PerTiBUSD != 6.25 {
		t.Errorf("zero Prices: %+v", got)
	}
	ps.Billing = Editions
	for _, loc := range []string{"US", "europe-west2", ""} {
		want := Price{Billing: Editions, Location: loc, SlotHourUSD: 0.06, Source: SourceSlotHour}
		if got := ps.For(loc); got != want {
			t.Errorf("editions For(%q) = %+v, want %+v", loc, got, want)
		}
	}
}

func TestFromBytes(t *testing.T) {
	p := Price{Billing: OnDemand, PerTiBUSD: 6.25}
	for bytes, want := range map[int64]float64{
		0:              0,
		-1:             0,
		1 << 40:        6.25,
		10 << 40:       62.5,
		10 << 20:       0.0001, // BigQuery's 10 MB minimum: 0.0000596…, to the hundredth of a cent
		1 << 30:        0.0061, // 0.006103…
		10 << 30:       0.061,
		512 << 30:      3.125,
		1<<40 + 1<<39:  9.375,
		1 << 20:        0, // 0.0000059…
		3 * (1 << 40):  18.75,
		1000000000000:  5.6843, // 10^12 bytes
		50 * (1 << 40): 312.5,
	} {
		got, ok := p.FromBytes(bytes)
		if !ok || got != want {
			t.Errorf("FromBytes(%d) = %v, %v; want %v", bytes, got, ok, want)
		}
	}
	if got, ok := (Price{Billing: Editions, SlotHourUSD: 0.06}).FromBytes(1 << 40); ok || got != 0 {
		t.Errorf("editions FromBytes = %v, %v; want no price", got, ok)
	}
	if got, ok := (Price{PerTiBUSD: 6.25}).FromBytes(1 << 40); !ok || got != 6.25 {
		t.Errorf("zero Billing FromBytes = %v, %v; want on demand", got, ok)
	}
}

func TestFromSlotMs(t *testing.T) {
	p := Price{Billing: Editions, SlotHourUSD: 0.06}
	for ms, want := range map[int64]float64{
		0:          0,
		-5:         0,
		3_600_000:  0.06,   // one slot-hour
		36_000_000: 0.6,    // ten
		60_000:     0.001,  // a slot-minute
		1_000:      0,      // 0.0000166…
		90_000_000: 1.5,    // 25 slot-hours
		123_456:    0.0021, // 0.0020576
	} {
		got, ok := p.FromSlotMs(ms)
		if !ok || got != want {
			t.Errorf("FromSlotMs(%d) = %v, %v; want %v", ms, got, ok, want)
		}
	}
	if got, ok := (Price{Billing: OnDemand, PerTiBUSD: 6.25}).FromSlotMs(3_600_000); ok || got != 0 {
		t.Errorf("on-demand FromSlotMs = %v, %v; want no price", got, ok)
	}
}

func TestJob(t *testing.T) {
	od := Price{Billing: OnDemand, PerTiBUSD: 6.25}
	if got, ok := od.Job(1<<40, 3_600_000, true); !ok || got != 6.25 {
		t.Errorf("on demand: %v, %v", got, ok)
	}
	if got, ok := od.Job(1<<40, 0, false); !ok || got != 6.25 {
		t.Errorf("on demand without slot time: %v, %v", got, ok)
	}
	ed := Price{Billing: Editions, SlotHourUSD: 0.06}
	if got, ok := ed.Job(1<<40, 7_200_000, true); !ok || got != 0.12 {
		t.Errorf("editions: %v, %v", got, ok)
	}
	if got, ok := ed.Job(1<<40, 0, true); !ok || got != 0 {
		t.Errorf("editions, no slot time used (a cache hit): %v, %v", got, ok)
	}
	if got, ok := ed.Job(1<<40, 0, false); ok || got != 0 {
		t.Errorf("editions without totalSlotMs: %v, %v; want unknown", got, ok)
	}
}

func TestPriceJSONAndString(t *testing.T) {
	p := Prices{PricePerTiB: 6.25}.For("US")
	b, _ := json.Marshal(p)
	if want := `{"billing":"on-demand","location":"US","perTiBUSD":6.25,"source":"table 2026-11"}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	if got, want := p.String(), "$6.25/TiB on demand in US [table 2026-11]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	e := Prices{Billing: Editions, SlotHourPrice: 0.06}.For("")
	b, _ = json.Marshal(e)
	if want := `{"billing":"editions","slotHourUSD":0.06,"source":"--slot-hour-price"}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	if got, want := e.String(), "$0.06/slot-hour under editions [--slot-hour-price]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	f := Prices{PricePerTiB: 5}.For("asia-south1")
	if got, want := f.String(), "$5/TiB on demand in asia-south1 [--price-per-tib]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestParseByLocation(t *testing.T) {
	got, err := ParseByLocation(" europe-west2=7.82, ASIA-NORTHEAST1 = 7.5 ,,US=0")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got["europe-west2"] != 7.82 || got["asia-northeast1"] != 7.5 || got["us"] != 0 {
		t.Errorf("got %v", got)
	}
	if got, err := ParseByLocation("  "); err != nil || got != nil {
		t.Errorf("empty: %v, %v", got, err)
	}
	for _, bad := range []string{"europe-west2", "=7", "eu=", "eu=cheap", "eu=-1", "eu=NaN", "eu=Inf", "eu=1,EU=2"} {
		if _, err := ParseByLocation(bad); err == nil || !strings.Contains(err.Error(), "price-per-tib-by-location") {
			t.Errorf("ParseByLocation(%q) = %v, want an error naming the flag", bad, err)
		}
	}
}

func TestValidate(t *testing.T) {
	if err := (Prices{Billing: OnDemand, PricePerTiB: 6.25, SlotHourPrice: 0.06, PricePerTiBByLocation: map[string]float64{"eu": 7}}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (Prices{}).Validate(); err != nil {
		t.Error(err)
	}
	err := (Prices{Billing: "flat", PricePerTiB: -1, SlotHourPrice: math.NaN(), PricePerTiBByLocation: map[string]float64{"eu": -2}}).Validate()
	for _, want := range []string{"billing \"flat\"", "price-per-tib must", "slot-hour-price must", "eu's price"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want it to say %q", err, want)
		}
	}
}
