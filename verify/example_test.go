package verify_test

import (
	"context"
	"fmt"

	"github.com/foley-audio/foley"
	"github.com/foley-audio/foley/license"
	"github.com/foley-audio/foley/policy"
	"github.com/foley-audio/foley/verify"
)

// Gate a shortlist for the default intended use, verify the kept clips at
// the listen rung, and decide.
func Example() {
	event := foley.NewEvent("a heavy wooden door slams shut")
	shortlist := []foley.Candidate{
		{
			Sound: foley.SoundRecord{ID: "fs-1", Caption: "heavy wooden door slams shut", Tags: []string{"door", "slam"},
				License: foley.License{LicenseID: "http://creativecommons.org/publicdomain/zero/1.0/", RightsVerified: true}},
			ClapScore: new(0.61),
		},
		{
			Sound: foley.SoundRecord{ID: "fs-2", Caption: "barn door slams shut",
				License: foley.License{LicenseID: "Attribution NonCommercial", RightsVerified: true}},
			ClapScore: new(0.58),
		},
	}
	kept := license.Gate(shortlist, foley.DefaultUse())
	judge := verify.Judges{}.For(foley.LevelListen) // no model configured: string-overlap
	for i, c := range kept {
		v, err := verify.Match(context.Background(), event, c, foley.LevelListen, judge, verify.DefaultTauClap)
		if err != nil {
			panic(err)
		}
		kept[i].Verdict = &v
		fmt.Printf("%s: match=%v confidence=%.3f by %s at %s\n", c.Sound.ID, v.Match, v.Confidence, v.Judge, v.Level)
	}
	fmt.Println("fs-2 licence ok:", *shortlist[1].LicenseOK)
	d, err := policy.Decide(event, kept, kept, policy.DefaultTauRetrieve, policy.DefaultBudget(), 0)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Action, d.Candidate.Sound.ID)
	// Output:
	// fs-1: match=true confidence=0.714 by string-overlap at listen
	// fs-2 licence ok: false
	// use fs-1
}
