// Package cost prices BigQuery jobs in US dollars: on demand, by the bytes
// billed at the per-TiB price of the job's location; under editions
// (capacity billing), by the slot time a job used at a slot-hour price,
// known only once the job has run.
//
// It is a leaf: it imports nothing of this module's, and the query layer
// asks it for a Price wherever it reports bytes.
package cost

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Billing is how the project's queries are billed.
type Billing string

const (
	// OnDemand bills the bytes a query processes, per TiB (the default).
	OnDemand Billing = "on-demand"
	// Editions bills slot time (capacity, per slot-hour): a job's cost
	// follows from its totalSlotMs, known only after it ran.
	Editions Billing = "editions"
)

// ParseBilling reads --billing: on-demand (or empty) or editions.
func ParseBilling(s string) (Billing, error) {
	switch b := Billing(strings.ToLower(strings.TrimSpace(s))); b {
	case "", OnDemand:
		return OnDemand, nil
	case Editions:
		return Editions, nil
	}
	return "", fmt.Errorf("--billing %q: want on-demand or editions", s)
}

// The price table: BigQuery's on-demand compute prices by location, as the
// pricing page gave them in the month TableDate names.
//
// It holds only figures this project is sure of: the US and EU
// multi-regions, and the US regions billed like the US multi-region. Every
// other region is left out on purpose rather than priced at a guess:
// regional prices differ from the multi-regions' (some US regions'
// included) and change. A location not in the table is priced at
// --price-per-tib, and the answer says so (SourceFlag);
// --price-per-tib-by-location sets any location's price.
const (
	// TableDate is the table's date: when its figures were written down
	// from TableSource (not re-read from it since).
	TableDate = "2026-11"
	// TableSource is where its figures come from.
	TableSource = "https://cloud.google.com/bigquery/pricing"
	// DefaultPerTiBUSD is --price-per-tib's default: the US and EU
	// multi-regions' on-demand price, which the table below gives them.
	DefaultPerTiBUSD = usOnDemandPerTiB
	// DefaultSlotHourUSD is --slot-hour-price's default: the Enterprise
	// edition's pay-as-you-go price in the US. What a project pays per
	// slot-hour depends on its edition, region and commitments: the
	// operator's to set.
	DefaultSlotHourUSD = 0.06
)

// usOnDemandPerTiB is the on-demand USD price per TiB of the US
// multi-region, written once: the EU multi-region and the US regions in the
// table are billed alike.
const usOnDemandPerTiB = 6.25

// onDemandPerTiB is the table: lower-case location → USD per TiB.
var onDemandPerTiB = map[string]float64{
	"us":          usOnDemandPerTiB, // US multi-region
	"eu":          usOnDemandPerTiB, // EU multi-region
	"us-central1": usOnDemandPerTiB, // Iowa
	"us-east1":    usOnDemandPerTiB, // South Carolina
	"us-east4":    usOnDemandPerTiB, // Northern Virginia
	"us-west1":    usOnDemandPerTiB, // Oregon
}

// TablePerTiB is the table's on-demand price for location (any case), and
// whether the table has one.
func TablePerTiB(location string) (float64, bool) {
	p, ok := onDemandPerTiB[strings.ToLower(strings.TrimSpace(location))]
	return p, ok
}

// Where a price came from (Price.Source).
const (
	SourceTable      = "table " + TableDate
	SourceFlag       = "--price-per-tib"
	SourceByLocation = "--price-per-tib-by-location"
	SourceSlotHour   = "--slot-hour-price"
)

// Price is the price a cost was computed at, reported with it: the billing
// model, the location it is the price of ("" when BigQuery did not say
// where the job runs), the price (PerTiBUSD on demand, SlotHourUSD under
// editions) and where that price came from.
type Price struct {
	Billing     Billing `json:"billing"`
	Location    string  `json:"location,omitempty"`
	PerTiBUSD   float64 `json:"perTiBUSD,omitempty"`
	SlotHourUSD float64 `json:"slotHourUSD,omitempty"`
	Source      string  `json:"source"`
}

const (
	tib        = 1 << 40
	msPerHour  = 3_600_000
	centPieces = 10000 // costs are rounded to the hundredth of a cent
)

// FromBytes is what bytes billed cost on demand. Under editions bytes set
// no price: ok is false.
func (p Price) FromBytes(bytes int64) (usd float64, ok bool) {
	if p.Billing == Editions {
		return 0, false
	}
	return round(float64(max(bytes, 0)) / tib * p.PerTiBUSD), true
}

// FromSlotMs is what slotMs slot-milliseconds cost under editions
// (slotMs / 3,600,000 × the slot-hour price). On demand slot time sets no
// price: ok is false.
func (p Price) FromSlotMs(slotMs int64) (usd float64, ok bool) {
	if p.Billing != Editions {
		return 0, false
	}
	return round(float64(max(slotMs, 0)) / msPerHour * p.SlotHourUSD), true
}

// Job is what a finished job cost: its bytes billed on demand, its slot
// time under editions. haveSlotMs says whether the statistics read gave
// the job's totalSlotMs; without it an editions cost is unknown (ok false).
func (p Price) Job(bytesBilled, slotMs int64, haveSlotMs bool) (usd float64, ok bool) {
	if p.Billing == Editions {
		if !haveSlotMs {
			return 0, false
		}
		return p.FromSlotMs(slotMs)
	}
	return p.FromBytes(bytesBilled)
}

// MicroUSD is Job in millionths of a dollar, unrounded: what a dollar
// budget (--max-usd-per-day) counts, where the cent's hundredth Job rounds
// to would lose the 10 MB lookups.
func (p Price) MicroUSD(bytesBilled, slotMs int64, haveSlotMs bool) (int64, bool) {
	if p.Billing == Editions {
		if !haveSlotMs {
			return 0, false
		}
		return int64(math.Ceil(float64(max(slotMs, 0)) / msPerHour * p.SlotHourUSD * 1e6)), true
	}
	return int64(math.Ceil(float64(max(bytesBilled, 0)) / tib * p.PerTiBUSD * 1e6)), true
}

// String is the price as a person reads it, with its source: "$6.25/TiB on
// demand in US [table 2026-11]".
func (p Price) String() string {
	where := ""
	if p.Location != "" {
		where = " in " + p.Location
	}
	if p.Billing == Editions {
		return fmt.Sprintf("$%s/slot-hour under editions%s [%s]", num(p.SlotHourUSD), where, p.Source)
	}
	return fmt.Sprintf("$%s/TiB on demand%s [%s]", num(p.PerTiBUSD), where, p.Source)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func round(usd float64) float64 { return math.Round(usd*centPieces) / centPieces }

// Prices are the operator's pricing settings, from the flags, each field
// named after its flag; query.Settings embeds them.
type Prices struct {
	// Billing (--billing). Zero: on demand.
	Billing Billing
	// PricePerTiB (--price-per-tib) prices, on demand, a location
	// neither PricePerTiBByLocation nor the table names, and a job of
	// unknown location. Zero: those cost 0.
	PricePerTiB float64
	// PricePerTiBByLocation (--price-per-tib-by-location) are on-demand
	// prices by lower-case location; they win over the table. Nil: none.
	PricePerTiBByLocation map[string]float64
	// SlotHourPrice (--slot-hour-price) is the USD price of a slot-hour
	// under editions. Zero: every editions cost is 0.
	SlotHourPrice float64
}

// For is the price of a job in location (any case; "" when unknown).
// On demand: --price-per-tib-by-location, else the table, else
// --price-per-tib. Under editions: --slot-hour-price, whatever the
// location.
func (ps Prices) For(location string) Price {
	location = strings.TrimSpace(location)
	if ps.Billing == Editions {
		return Price{Billing: Editions, Location: location, SlotHourUSD: ps.SlotHourPrice, Source: SourceSlotHour}
	}
	p := Price{Billing: OnDemand, Location: location, PerTiBUSD: ps.PricePerTiB, Source: SourceFlag}
	if location == "" {
		return p
	}
	if v, ok := ps.PricePerTiBByLocation[strings.ToLower(location)]; ok {
		p.PerTiBUSD, p.Source = v, SourceByLocation
	} else if v, ok := TablePerTiB(location); ok {
		p.PerTiBUSD, p.Source = v, SourceTable
	}
	return p
}

// Validate reports settings no price can come from.
func (ps Prices) Validate() error {
	var problems []string
	if ps.Billing != "" && ps.Billing != OnDemand && ps.Billing != Editions {
		problems = append(problems, fmt.Sprintf("billing %q: want on-demand or editions", ps.Billing))
	}
	if ps.PricePerTiB < 0 || math.IsNaN(ps.PricePerTiB) || math.IsInf(ps.PricePerTiB, 0) {
		problems = append(problems, "price-per-tib must be a number, not negative")
	}
	if ps.SlotHourPrice < 0 || math.IsNaN(ps.SlotHourPrice) || math.IsInf(ps.SlotHourPrice, 0) {
		problems = append(problems, "slot-hour-price must be a number, not negative")
	}
	for _, l := range sortedKeys(ps.PricePerTiBByLocation) {
		if v := ps.PricePerTiBByLocation[l]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			problems = append(problems, fmt.Sprintf("price-per-tib-by-location: %s's price must be a number, not negative", l))
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// ParseByLocation reads --price-per-tib-by-location:
// "europe-west2=7.82,asia-northeast1=7.5", location=USD per TiB pairs,
// locations in any case (kept lower-case). Empty: nil.
func ParseByLocation(s string) (map[string]float64, error) {
	var out map[string]float64
	for _, pair := range strings.Split(s, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		loc, price, ok := strings.Cut(pair, "=")
		loc = strings.ToLower(strings.TrimSpace(loc))
		if !ok || loc == "" {
			return nil, fmt.Errorf("--price-per-tib-by-location: %q is not location=price", pair)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(price), 64)
		if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("--price-per-tib-by-location: %q: the price must be a number of US dollars per TiB, not negative", pair)
		}
		if _, dup := out[loc]; dup {
			return nil, fmt.Errorf("--price-per-tib-by-location: %s is priced twice", loc)
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[loc] = v
	}
	return out, nil
}

func sortedKeys(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
