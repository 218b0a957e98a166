package ingest

import (
	"regexp"
	"sort"
	"strings"

	"github.com/foley-audio/foley/sqlite"
)

// ucsCategories maps the CatID prefixes of the Universal Category System's
// top-level categories to their names. A CatID is such a prefix followed by
// a subcategory in CamelCase ("DOORWood": DOORS, Wood). foley knows the
// top-level categories; the subcategory is read from the CatID itself.
var ucsCategories = map[string]string{
	"AERO": "AIRCRAFT", "AIR": "AIR", "ALRM": "ALARMS", "AMB": "AMBIENCE", "ANML": "ANIMALS",
	"ARCH": "ARCHIVED", "BEEP": "BEEPS", "BELL": "BELLS", "BIRD": "BIRDS", "BLLT": "BULLETS",
	"BOAT": "BOATS", "CERM": "CERAMICS", "CHAIN": "CHAINS", "CHEM": "CHEMICALS", "CLOCK": "CLOCKS",
	"CLOTH": "CLOTH", "COMM": "COMMUNICATIONS", "COMP": "COMPUTERS", "CREA": "CREATURES", "CROWD": "CROWDS",
	"DEST": "DESTRUCTION", "DIRT": "DIRT & SAND", "DOOR": "DOORS", "DRWR": "DRAWERS", "DSGN": "DESIGNED",
	"ELEC": "ELECTRICITY", "EQUIP": "EQUIPMENT", "EXPL": "EXPLOSIONS", "FART": "FARTS", "FEET": "FOOTSTEPS",
	"FGHT": "FIGHT", "FIRE": "FIRE", "FIREWRK": "FIREWORKS", "FOLY": "FOLEY", "FOOD": "FOOD & DRINK",
	"GAME": "GAMES", "GEOT": "GEOTHERMAL", "GLAS": "GLASS", "GORE": "GORE", "GUN": "GUNS",
	"HMN": "HUMAN", "HORN": "HORNS", "ICE": "ICE", "LASR": "LASERS", "LETHR": "LEATHER",
	"LIQ": "LIQUID & MUD", "MACH": "MACHINES", "MAGC": "MAGIC", "MECH": "MECHANICAL", "METL": "METAL",
	"MOTR": "MOTORS", "MOVE": "MOVEMENT", "MUSC": "MUSICAL", "NTRL": "NATURAL DISASTER", "OBJ": "OBJECTS",
	"PAPR": "PAPER", "PLAS": "PLASTIC", "RAIN": "RAIN", "ROBO": "ROBOTS", "ROCK": "ROCKS",
	"ROPE": "ROPE", "RUBR": "RUBBER", "SCI": "SCIFI", "SNOW": "SNOW", "SPRT": "SPORTS",
	"TOOL": "TOOLS", "TOON": "CARTOON", "TOY": "TOYS", "TRAN": "TRAINS", "UI": "USER INTERFACE",
	"VEH": "VEHICLES", "VOX": "VOICES", "WATR": "WATER", "WEAP": "WEAPONS", "WHSH": "SWOOSHES",
	"WHSTL": "WHISTLES", "WIND": "WIND", "WING": "WINGS", "WNDW": "WINDOWS", "WOOD": "WOOD", "WTHR": "WEATHER",
}

// ucsPrefixes are the prefixes, longest first, so that "FIREWRK" wins over
// "FIRE".
var ucsPrefixes = func() []string {
	var p []string
	for k := range ucsCategories {
		p = append(p, k)
	}
	sort.Slice(p, func(i, j int) bool { return len(p[i]) > len(p[j]) || len(p[i]) == len(p[j]) && p[i] < p[j] })
	return p
}()

var catIDShape = regexp.MustCompile(`^[A-Z]{2,}([A-Z][a-z][A-Za-z0-9]*)?$`)

// UCSName is what a UCS file name says.
type UCSName struct {
	CatID       string // e.g. DOORWood
	Category    string // e.g. DOORS
	SubCategory string // e.g. Wood
	FXName      string // the description block, as words
	CreatorID   string
	SourceID    string
}

// ParseUCSName reads a file stem written in the UCS convention
// CatID_FXName_CreatorID_SourceID (the last two may be missing, and more
// blocks may follow). ok is false when the first block is not a CatID of a
// category foley knows.
func ParseUCSName(stem string) (n UCSName, ok bool) {
	blocks := strings.Split(stem, "_")
	if len(blocks) < 2 || !catIDShape.MatchString(blocks[0]) {
		return n, false
	}
	id := blocks[0]
	for _, p := range ucsPrefixes {
		rest, found := strings.CutPrefix(id, p)
		if !found || (rest != "" && !(rest[0] >= 'A' && rest[0] <= 'Z')) {
			continue
		}
		n = UCSName{CatID: id, Category: ucsCategories[p], SubCategory: strings.Join(sqlite.SplitWords(rest), " "),
			FXName: strings.Join(sqlite.SplitWords(blocks[1]), " ")}
		if len(blocks) > 2 {
			n.CreatorID = blocks[2]
		}
		if len(blocks) > 3 {
			n.SourceID = blocks[3]
		}
		return n, n.FXName != ""
	}
	return n, false
}

// UCSCategory returns the top-level UCS category of a CatID ("DOORWood":
// "DOORS") or of a category name itself ("doors": "DOORS"), and false when
// foley does not know it.
func UCSCategory(catID string) (string, bool) {
	catID = strings.TrimSpace(catID)
	if catID == "" {
		return "", false
	}
	upper := strings.ToUpper(catID)
	for _, name := range ucsCategories {
		if name == upper {
			return name, true
		}
	}
	if !catIDShape.MatchString(catID) {
		return "", false
	}
	for _, p := range ucsPrefixes {
		rest, found := strings.CutPrefix(catID, p)
		if found && (rest == "" || rest[0] >= 'A' && rest[0] <= 'Z') {
			return ucsCategories[p], true
		}
	}
	return "", false
}
