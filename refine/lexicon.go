package refine

import (
	"fmt"
	"strings"
)

// kind is what a head word of the lexicon is.
type kind byte

const (
	noun   kind = 'n' // a sound source: door, dog, rain
	verb   kind = 'v' // an action or a sound: slam, bark, creak
	both   kind = 'b' // a source that is also an action (rain, fire, crow): a verb after a noun
	person kind = 'p' // a person: a source that yields to the thing acted on
	adj    kind = 'a' // an adjective worth a synonym (wooden: wood)
)

// word is a head word of the lexicon.
type word struct {
	kind  kind
	syn   []string // synonyms and near-synonyms, best first
	hyper string   // a broader term, or ""
	acts  []string // for a source: the sounds it makes, likeliest first
	// vsyn and vhyper are syn and hyper for the word as an action; they
	// differ from them for some words of kind both.
	vsyn   []string
	vhyper string
}

// lexiconTable is the synonym and hypernym table: one head word a line,
//
//	head kind | synonyms | hypernym | sounds it makes
//
// with the kinds above. A word of kind both may give its synonyms and
// hypernym as a source and as an action apart, "as source ; as action". Head words are lemmas (singular, infinitive); the
// terms on the right may be phrases and need not be head words.
const lexiconTable = `
# Doors, windows, furniture.
door      n | | | slam, creak, knock, open, close
gate      n | door | | creak, clang, close
doorbell  n | bell, buzzer | bell | ring, chime, buzz
window    n | | | open, close, shatter, rattle
drawer    n | | furniture | open, close, slide
cabinet   n | cupboard | furniture | open, close
cupboard  n | cabinet | furniture | open, close
furniture n | | | creak, scrape
chair     n | seat | furniture | creak, scrape, squeak
table     n | desk | furniture | knock, scrape
desk      n | table | furniture | knock
bed       n | mattress | furniture | creak, squeak
latch     n | lock | | click, rattle
lock      n | latch | | click, unlock
key       n | keys | | jingle, turn, unlock
hinge     n | | | creak, squeak
handle    n | knob | | turn, rattle
knob      n | handle | | turn, rattle
floor     n | floorboard | | creak
floorboard n | floor | | creak
stair     n | staircase, steps | | creak
open      v | unlock | |
close     v | shut | |
shut      v | close, slam | |
unlock    v | open | |

# Footsteps.
footsteps n | footfall, steps | | walk, run, shuffle
footfall  n | footsteps | footsteps | walk
step      b | footsteps, footfall ; walk, tread | footsteps ; footsteps |
shoe      n | boot | | step, squeak
boot      n | shoe | | step, stomp
heel      n | high heels | shoe | click, step
walk      v | step, stroll | footsteps |
run       v | sprint, jog | footsteps |
jog       v | run | footsteps |
sprint    v | run | footsteps |
stomp     v | stamp, trample | footsteps |
stamp     v | stomp | footsteps |
shuffle   v | scuff, drag | footsteps |
tiptoe    v | sneak, creep | footsteps |
sneak     v | tiptoe, creep | footsteps |
creep     v | sneak, tiptoe | footsteps |

# Weather.
weather   n | | | rain, wind, thunder
rain      b | downpour, rainfall, drizzle ; pour, patter | weather ; | patter, drip, pour
rainfall  n | rain | rain |
drizzle   b | light rain ; rain | rain ; |
downpour  n | heavy rain, rain | rain |
storm     n | thunderstorm, tempest | weather | rage, rumble
thunderstorm n | storm | storm |
thunder   b | thunderclap, rumble ; rumble, boom | storm ; | rumble, crack, clap
thunderclap n | thunder crack, thunder | thunder |
lightning n | thunderclap | storm | strike, crack
wind      b | gust, breeze ; blow, gust | weather ; | howl, blow, whistle
breeze    n | light wind, wind | wind | blow
gust      b | wind ; blow | wind ; | blow
gale      n | strong wind, wind | wind | howl
hail      b | hailstorm ; | weather ; |
snow      b | snowfall ; | weather ; | crunch
hurricane n | storm, gale | storm | howl
tornado   n | twister | storm | roar
blow      v | gust, howl | |
patter    v | drip, pitter-patter | rain |

# Water.
water     n | liquid | | splash, drip, pour, flow
liquid    n | water | | pour, splash
river     n | stream | water | flow, rush
stream    n | brook, creek | water | flow, trickle, babble
brook     n | stream | water | babble
waterfall n | cascade | water | roar, rush
ocean     n | sea, surf | water | wave, crash, roar
sea       n | ocean | water | wave
wave      n | surf, breaker | ocean | crash, lap
surf      n | waves | ocean | crash
lake      n | pond | water | lap
pond      n | lake | water | splash
puddle    n | | water | splash
drip      v | drop, trickle | water |
drop      b | droplet, drip ; fall, thud | water ; impact |
splash    v | splosh, plunge | water |
pour      v | fill, flow | liquid |
flow      v | run, stream | water |
bubble    b | gurgle, fizz | liquid |
gurgle    v | bubble, burble | liquid |
trickle   v | drip, dribble | water |
babble    v | murmur, burble | water |
lap       v | splash | water |
rush      v | roar, flow | water |
plunge    v | dive, splash | water |
dive      v | plunge, splash | water |
swim      v | paddle, splash | water |
faucet    n | tap | plumbing | run, drip
sink      n | basin | plumbing | drain
toilet    n | | plumbing | flush
shower    n | | plumbing | run, spray
flush     v | | plumbing |
drain     v | gurgle | plumbing |
boat      n | ship | vehicle | horn, pass
ship      n | boat | vehicle | horn

# Fire.
fire      b | flame, blaze ; shoot, blast | ; | crackle, burn, roar
flame     n | fire | fire | flicker, burn, whoosh
blaze     n | fire, inferno | fire | roar
campfire  n | fire, bonfire | fire | crackle
bonfire   n | campfire, fire | fire | crackle
fireplace n | hearth, fire | fire | crackle
torch     n | flame | fire | whoosh
match     n | matchstick | fire | strike, light
lighter   n | | fire | click, flick
crackle   v | crack, pop, sizzle | fire |
burn      v | blaze, flame | fire |
ignite    v | light, whoosh | fire |
light     v | ignite, strike | fire |
flicker   v | flutter | fire |
sizzle    v | fry, hiss | cooking |

# Glass.
glass     n | glassware | | shatter, break, clink
bottle    n | glass bottle | glass | clink, break, pop
mirror    n | glass | glass | shatter
shatter   v | smash, break | destruction |
smash     v | shatter, crash | destruction |
break     v | shatter, snap, crack | destruction |
clink     v | chink, tinkle, ting | impact |
tinkle    v | jingle, chime | |

# Metal.
metal     n | steel, iron | material | clang, clank, scrape
steel     n | metal | metal | clang
iron      n | metal | metal | clang
tin       n | metal | metal | rattle
chain     n | chains | metal | rattle, clank, jingle
pipe      n | metal pipe | metal | clang, hiss
coin      n | change | money | jingle, drop, clink
sword     n | blade | weapon | clash, swish, unsheathe
blade     n | knife, sword | weapon | swish, slice
knife     n | blade | weapon | stab, slice, chop
clang     v | clank, bang | impact |
clank     v | clang, rattle | impact |
clash     v | clang, crash | impact |
rattle    v | shake, clatter | |
clatter   v | rattle, clank | impact |
jingle    v | jangle, tinkle | |
jangle    v | jingle | |
shake     v | rattle | |
scrape    v | scratch, grind | friction |
scratch   v | scrape | friction |
grind     v | scrape, rasp | friction |
screech   v | squeal, scrape | friction |
squeal    v | screech, squeak | |
squeak    v | creak, squeal | friction |
creak     v | squeak, groan | friction |
groan     v | creak, moan | |

# Wood.
wood      n | timber | material | creak, crack, knock
plank     n | board | wood | creak
branch    n | twig, stick | wood | snap, break
twig      n | stick, branch | wood | snap
stick     n | twig | wood | snap
log       n | timber | wood | split, chop
tree      n | | plant | fall, rustle, creak
leaf      n | leaves, foliage | plant | rustle
bush      n | shrub, foliage | plant | rustle
grass     n | foliage | plant | rustle
crack     v | snap, break | impact |
snap      v | crack, break | impact |
chop      v | hack, split | impact |
split     v | crack, chop | impact |

# Animals.
animal    n | creature | | call, growl
dog       n | hound, puppy | animal | bark, growl, whine, howl
puppy     n | dog | dog | yap, whine
hound     n | dog | dog | bay, howl
cat       n | kitten | animal | meow, purr, hiss
kitten    n | cat | cat | meow
bird      n | songbird | animal | chirp, tweet, sing, flap
crow      b | raven ; caw | bird ; | caw
raven     n | crow | bird | caw, croak
owl       n | | bird | hoot
chicken   n | hen | bird | cluck
hen       n | chicken | bird | cluck
rooster   n | cockerel | bird | crow
duck      n | | bird | quack
goose     n | | bird | honk
seagull   n | gull | bird | squawk
gull      n | seagull | bird | squawk
pigeon    n | dove | bird | coo
dove      n | pigeon | bird | coo
parrot    n | | bird | squawk
eagle     n | hawk | bird | screech
hawk      n | eagle | bird | screech
horse     n | stallion, pony | animal | neigh, whinny, gallop, snort
pony      n | horse | horse | neigh
cow       n | cattle | animal | moo
bull      n | cow | cow | snort, bellow
sheep     n | lamb | animal | bleat
lamb      n | sheep | sheep | bleat
goat      n | | animal | bleat
pig       n | hog, swine | animal | oink, grunt, squeal
wolf      n | | animal | howl, growl
lion      n | big cat | animal | roar, growl
tiger     n | big cat | animal | roar, growl
bear      n | | animal | growl, roar
monkey    n | ape | animal | chatter, screech
elephant  n | | animal | trumpet
frog      n | toad | animal | croak, ribbit
toad      n | frog | animal | croak
insect    n | bug | animal | buzz, chirp
bee       n | bumblebee | insect | buzz
fly       b | housefly ; buzz, flutter | insect ; | buzz
mosquito  n | gnat | insect | whine, buzz
cricket   n | | insect | chirp
cicada    n | | insect | buzz
mouse     n | rat | rodent | squeak, scurry
rat       n | mouse | rodent | squeak, scurry
snake     n | serpent | animal | hiss, rattle
whale     n | | animal | call, song
dolphin   n | | animal | click, whistle
creature  n | monster, beast | animal | roar, growl
monster   n | creature, beast | creature | roar, growl
wing      n | wings | bird | flap, flutter
bark      v | woof, yap | |
yap       v | yelp, bark | |
yelp      v | yap, whimper | |
woof      v | bark | |
growl     v | snarl, grumble | |
snarl     v | growl | |
howl      v | wail | |
whine     v | whimper | |
whimper   v | whine | |
meow      v | mew, miaow | |
purr      v | rumble | |
hiss      v | sizzle, fizz | |
chirp     v | tweet, cheep | |
tweet     v | chirp | |
sing      v | song, chant | |
caw       v | croak | |
hoot      v | call | |
cluck     v | cackle | |
quack     v | | |
coo       v | | |
squawk    v | screech, caw | |
neigh     v | whinny | |
whinny    v | neigh | |
gallop    v | trot, hooves | footsteps |
trot      v | gallop | footsteps |
snort     v | huff, grunt | |
moo       v | low | |
bleat     v | baa | |
oink      v | grunt | |
grunt     v | snort | |
roar      b | growl, bellow | |
bellow    v | roar | |
croak     v | ribbit | |
ribbit    v | croak | |
scurry    v | scamper, scratch | movement |
flap      v | flutter, wave | movement |
flutter   v | flap | movement |

# Vehicles.
vehicle   n | | | pass, drive
car       n | automobile | vehicle | pass, drive, start, honk
sedan     n | car | car | pass
automobile n | car | vehicle | pass
truck     n | lorry | vehicle | pass, rumble, honk
lorry     n | truck | vehicle | pass
bus       n | coach | vehicle | pass, idle
motorcycle n | motorbike | vehicle | rev, pass, roar
motorbike n | motorcycle | vehicle | rev, pass
bicycle   n | bike | vehicle | bell, pedal
bike      n | bicycle | vehicle | bell
train     n | locomotive, railway | vehicle | pass, horn, whistle
locomotive n | steam train, train | train | whistle, chug
tram      n | streetcar | vehicle | bell, pass
subway    n | metro, underground | train | pass
airplane  n | aeroplane, plane | aircraft | pass, fly
plane     n | airplane | aircraft | pass, fly
jet       n | jet plane, airplane | aircraft | flyby, roar
helicopter n | chopper | aircraft | hover, pass
aircraft  n | airplane | vehicle | pass
engine    n | motor | machine | start, idle, rev, roar
motor     n | engine | machine | run, hum, whir
tire      n | tyre, wheel | vehicle | screech, skid
wheel     n | tire | vehicle | roll, squeak
brake     n | brakes | vehicle | screech, squeal
horn      n | car horn, hooter | vehicle | honk, beep, blare
siren     n | alarm | alarm | wail, blare
drive     v | pass, cruise | vehicle |
pass      v | pass by, drive by | |
rev       v | accelerate, roar | engine |
accelerate v | rev, speed up | engine |
idle      v | run | engine |
honk      v | beep, toot | horn |
skid      v | screech, slide | friction |
crash     b | collision, smash, wreck | impact |
collision n | crash | impact |
whoosh    b | swoosh, swish | movement |
swoosh    b | whoosh, swish | movement |
swish     b | whoosh, swoosh | movement |
whiz      v | whoosh, zip | movement |

# Guns and explosions.
weapon    n | | | fire
gun       n | firearm, weapon | weapon | shot, fire, reload
gunshot   n | shot, gunfire | gun | echo
gunfire   n | gunshots | gun | echo
shot      n | gunshot | gun | echo
pistol    n | handgun, gun | gun | shot, reload, cock
handgun   n | pistol, gun | gun | shot
rifle     n | gun | gun | shot, bolt, reload
shotgun   n | gun | gun | blast, pump, reload
revolver  n | pistol | gun | shot, cock
bullet    n | round | gun | ricochet, whiz
cannon    n | artillery | weapon | boom, blast
shoot     v | fire, blast | gun |
reload    v | cock, load | gun |
cock      v | reload | gun |
ricochet  v | whiz, ping | bullet |
explosion n | blast, detonation, boom | | echo, rumble
explode   v | blast, detonate, blow up | explosion |
detonate  v | explode | explosion |
blast     b | explosion, boom | explosion |
boom      b | blast, explosion | explosion |
bomb      n | explosive | explosion | explode, blast
grenade   n | bomb | explosion | explode
detonation n | explosion | explosion |
firework  n | fireworks | explosion | pop, crackle, whistle, burst
burst     v | pop, explode | |
pop       v | snap, burst | |
echo      v | reverberate | |

# Impacts and fights.
impact    n | hit, thud | | 
hit       b | impact, strike, punch | impact |
strike    v | hit | impact |
thud      b | thump, bump | impact |
thump     b | thud, bang | impact |
bump      b | thud, knock | impact |
bang      b | slam, boom, crash | impact |
slam      v | bang, shut, close, crash | impact |
knock     v | rap, tap | impact |
rap       v | knock, tap | impact |
tap       v | knock, rap | impact |
punch     b | hit, jab | fight |
kick      v | punch, hit | fight |
slap      v | smack, hit | fight |
smack     v | slap, whack | impact |
whack     v | smack, thwack | impact |
pound     v | hammer, thump, bang | impact |
fall      v | drop, tumble, thud | impact |
tumble    v | fall | impact |
collapse  v | crumble, fall | destruction |
crumble   v | collapse | destruction |
crush     v | crunch, squash | destruction |
crunch    v | crush, crackle | |
fight     n | brawl, scuffle | | punch
body      n | | human | fall, thud
rock      n | stone | | fall, scrape, tumble
stone     n | rock | | fall, scrape
gravel    n | stones | | crunch
debris    n | rubble | destruction | fall, crash
rubble    n | debris | destruction | fall
roof      n | rooftop | building | rain
wall      n | | building | knock, thud
ceiling   n | | building | creak
road      n | street, asphalt | surface | traffic
concrete  n | pavement | surface | footsteps
carpet    n | rug | surface | footsteps
tile      n | tiles | surface | footsteps
mud       n | | surface | squelch, footsteps
sand      n | | surface | footsteps
dirt      n | soil | surface | footsteps

# People and their sounds.
person    p | man, woman | human |
man       p | male, guy | person | cough, laugh, shout
woman     p | female, lady | person | scream, laugh
child     p | kid | person | laugh, cry, giggle
kid       p | child | person | laugh, cry
boy       p | child | person | laugh, shout
girl      p | child | person | laugh, scream
baby      p | infant | child | cry, giggle, babble
people    n | crowd | crowd | talk, murmur, cheer
human     n | person | | breath
voice     n | speech, vocal | human | talk
heartbeat n | heart beat, pulse | body | thump
heart     n | heartbeat | body | beat, thump
beat      v | thump, pulse | |
cough     v | hack, splutter | voice |
sneeze    v | achoo | voice |
laugh     v | chuckle, giggle, laughter | voice |
laughter  n | laugh, laughing | voice |
giggle    v | laugh, titter | voice |
chuckle   v | laugh | voice |
scream    v | shriek, yell, screech | voice |
shriek    v | scream, screech | voice |
shout     v | yell, call | voice |
yell      v | shout, holler | voice |
cry       v | sob, weep, wail | voice |
sob       v | cry, weep | voice |
wail      v | cry, howl | voice |
sigh      v | exhale, breath | voice |
breathe   v | breath, inhale | voice |
breath    n | breathing, exhale | voice |
gasp      v | inhale, pant | voice |
pant      v | breathe, gasp | voice |
snore     v | snoring | voice |
whisper   v | murmur, mutter | voice |
talk      v | speak, chatter, conversation | voice |
speak     v | talk | voice |
gulp      v | swallow | voice |
burp      v | belch | voice |
eat       v | chew, munch | eating |
chew      v | munch, eat | eating |
munch     v | chew, crunch | eating |
bite      v | crunch, chomp | eating |
kiss      v | smooch | |
clap      v | applause, applaud | |
applause  n | clapping, ovation | crowd |
applaud   v | clap, cheer | crowd |
cheer     v | applaud, shout | crowd |

# Crowds and places.
crowd     n | audience, people | | cheer, murmur, applaud, chant
audience  n | crowd | crowd | applaud, laugh
walla     n | crowd murmur, chatter | crowd |
murmur    v | chatter, babble, walla | crowd |
chatter   v | babble, murmur, talk | crowd |
chant     v | sing, shout | crowd |
riot      n | crowd, protest | crowd | chant
cafe      n | restaurant, diner | ambience | chatter
restaurant n | cafe | ambience | chatter
city      n | street, traffic | ambience | bustle
street    n | road, traffic | ambience | traffic
traffic   n | cars | ambience | pass
forest    n | woods | ambience | birds, wind
ambience  n | atmosphere, room tone | |

# Machines, tools, clocks and alarms.
machine   n | machinery | | hum, whir, run, clank
machinery n | machine | machine | hum, clank
computer  n | pc | machine | beep, hum
fan       n | ventilator | machine | whir, hum
generator n | | machine | hum, drone
printer   n | | machine | whir
elevator  n | lift | machine | ding, open
refrigerator n | fridge | appliance | hum
fridge    n | refrigerator | appliance | hum
microwave n | | appliance | beep, hum
vacuum    n | vacuum cleaner, hoover | appliance | run, whine
blender   n | mixer | appliance | whir
tool      n | | | hit
hammer    n | mallet | tool | hit, pound, tap
drill     n | power drill | tool | whir, bore
saw       n | handsaw | tool | cut, rasp
chainsaw  n | | tool | rev, cut
screwdriver n | | tool | turn
wrench    n | spanner | tool | clank
axe       n | hatchet | tool | chop, swing
shovel    n | spade | tool | dig, scrape
nail      n | | tool | hammer
scissors  n | shears | tool | snip, cut
cut       v | slice, chop, snip | |
dig       v | shovel, scrape | |
whir      b | whirr, hum, buzz | machine |
hum       b | buzz, drone | |
buzz      b | hum, drone | |
drone     b | hum, buzz | |
clock     n | | | tick, chime, tock
watch     n | wristwatch, clock | clock | tick
tick      v | tock, click | clock |
tock      v | tick | clock |
alarm     n | siren, alert | | ring, beep, blare
buzzer    n | alarm, beeper | alarm | buzz
bell      n | chime | | ring, toll, chime, ding
ring      v | chime, toll, ding | |
toll      v | ring, peal | bell |
chime     b | ring, ding, toll | bell |
ding      b | ring, chime, ping | bell |
phone     n | telephone, cellphone | | ring, vibrate, dial, beep
telephone n | phone | phone | ring, dial
cellphone n | phone, mobile phone | phone | ring, vibrate
vibrate   v | buzz, vibration | |
dial      v | | phone |
blare     v | wail, honk | alarm |

# User interface.
ui        n | interface, user interface | | click, beep, blip
interface n | ui | ui | click, beep
click     b | tap, tick, clack | ui |
button    n | switch | ui | click, press
switch    n | toggle, button | ui | click, flip
keyboard  n | computer keyboard | computer | typing, click, clack
typing    v | keystroke, keys | computer |
notification n | alert, ping, chime | ui |
alert     n | notification, alarm | ui | beep
beep      b | bleep, blip, tone | ui |
blip      b | beep, bleep | ui |
bleep     b | beep, blip | ui |
ping      b | ding, beep | ui |
swipe     v | swish, slide | ui |
glitch    n | | ui |

# Paper and cloth.
paper     n | sheet, page | | rustle, crumple, tear, flip
page      n | paper, sheet | paper | turn, flip, rustle
book      n | | paper | close, open
newspaper n | paper | paper | rustle, fold
envelope  n | | paper | open, tear
cardboard n | carton | paper | tear
box       n | crate, carton | | open, drop, slide
bag       n | sack, pouch | | rustle, drop
rustle    v | crinkle, crackle | |
crumple   v | crinkle, scrunch | paper |
crinkle   v | crumple, rustle | |
tear      v | rip | destruction |
rip       v | tear | destruction |
flip      v | turn | |
cloth     n | fabric | | rustle, tear, flap
fabric    n | cloth | cloth | rustle
clothes   n | clothing | cloth | rustle
jacket    n | coat | clothing | rustle, zip
coat      n | jacket | clothing | rustle
zipper    n | zip | clothing | zip
zip       v | unzip, zipper | |
flag      n | banner | cloth | flap, flutter
tent      n | | cloth | flap
leather   n | | material | creak, squeak
plastic   n | | material | crinkle, crunch

# Food and drink.
food      n | meal | | sizzle, crunch
cook      v | fry, sizzle | cooking |
fry       v | sizzle, saute | cooking |
boil      v | simmer, bubble | cooking |
kettle    n | teakettle | kitchen | whistle, boil
pan       n | frying pan, skillet | kitchen | sizzle, clang
pot       n | saucepan | kitchen | boil, clang
plate     n | dish | kitchen | clatter, break
dish      n | plate | kitchen | clatter
cup       n | mug | kitchen | clink
mug       n | cup | kitchen | clink
spoon     n | cutlery | cutlery | stir, clink
fork      n | cutlery | cutlery | scrape
cutlery   n | silverware, utensils | kitchen | clatter
drink     v | sip, gulp, slurp | |
sip       v | slurp, drink | |
slurp     v | sip, gulp | |
cork      n | | bottle | pop
soda      n | soft drink | drink | fizz, pour, open
fizz      v | bubble, hiss | liquid |
apple     n | fruit | food | bite, crunch
coffee    n | | drink | pour
tea       n | | drink | pour
beer      n | | drink | pour, open
wine      n | | drink | pour
ice       n | ice cube | | clink, crack
stir      v | mix | |

# Musical instruments.
music     n | song, tune | | play
song      n | tune | music |
instrument n | | music | play
piano     n | keyboard | instrument | chord, note
guitar    n | acoustic guitar | instrument | strum, pluck, chord
drum      n | percussion | instrument | hit, roll, beat
violin    n | fiddle | instrument | pluck
cello     n | | instrument | pluck
trumpet   b | bugle, horn ; blare, blast | instrument ; | blast, fanfare
bugle     n | trumpet | instrument | call
flute     n | recorder | instrument | trill
harp      n | | instrument | strum, glissando
organ     n | pipe organ | instrument | chord
saxophone n | sax | instrument |
cymbal    n | crash cymbal | drum | crash, hit
gong      n | | instrument | hit, crash
tambourine n | | drum | shake, jingle
whistle   b | toot ; toot, blow | ; | blow
note      n | tone | music |
chord     n | | music |
strum     v | pluck | music |
pluck     v | strum, pick | music |
play      v | perform | music |

# Adjectives.
wooden    a | wood | |
metallic  a | metal | |
glassy    a | glass | |
electric  a | electrical | |
loud      a | heavy | |
distant   a | far | |
big       a | large | |
large     a | big | |
small     a | little | |
little    a | small | |
`

// adjectives are words that modify without naming a source or an action;
// they are dropped from the reduced queries.
var adjectives = wordSet(`
heavy light big small large little huge tiny massive giant enormous loud quiet
soft hard gentle rough old new ancient modern distant close far fast
slow quick sudden short long low high deep sharp dull bright dark thick thin wet
dry rusty creaky squeaky wooden metallic glassy electric electronic mechanical
digital analog analogue powerful strong weak faint subtle intense violent
aggressive angry happy sad scary eerie creepy spooky cheerful brief continuous
constant steady intermittent repeated single multiple several many rapid muffled
echoing reverberant hollow empty full busy crowded noisy silent calm peaceful wild
hot cold warm cool icy fresh dirty clean cheap expensive classic vintage retro
futuristic cartoon cartoonish realistic natural artificial synthetic organic crisp
punchy tight wide interior exterior indoor outdoor urban rural medieval victorian
tropical red blue green black white grey gray brown yellow golden silver little
ominous dramatic epic tense subtle mysterious magical huge sleepy lazy gigantic
rhythmic periodic rolling bouncing heavyweight lightweight solid smooth squishy wet
`)

// fillers are dropped wherever they occur: articles, pronouns, auxiliaries,
// particles, degree words and words about the recording itself.
var fillers = wordSet(`
a an the this that these those there here it its it's his her hers their theirs
our ours my your yours he she they we you i me him them us who whom which what
whose is are was were be been being am has have had having do does did will would
can could should shall may might must not no nor so very really quite slightly
rather somewhat just only also too even still again suddenly almost barely
up down off out away back around about some any each every another other
something someone somebody anyone anything everyone everything nothing one two
three four five six seven eight nine ten first second third once twice
sound sounds noise noises sfx fx effect effects audio recording recorded clip
sample foley like kind sort lot lots bit bits couple pair series
distance background foreground somewhere nearby surroundings area place
`)

// splitters separate the clauses of a query: prepositions and conjunctions.
// The first clause that names a source or an action is the main one.
var splitters = wordSet(`
on in at into onto against through across along under beneath below above behind
from to toward towards with without by near inside outside during while as and
then after before but or of for over upon between among within beside past
`)

// surfaces are the splitters after which a noun is the surface a source
// sounds on: "rain on a roof", "footsteps in snow".
var surfaces = wordSet(`on in into onto against through across along over upon under`)

// vocal marks the hypernyms of the actions a person makes with the voice or
// body, for which the person is the source ("a woman screams").
var vocal = wordSet(`voice`)

// irregular maps irregular inflections to their lemmas.
var irregular = map[string]string{
	"rang": "ring", "rung": "ring", "broke": "break", "broken": "break",
	"fell": "fall", "fallen": "fall", "blew": "blow", "blown": "blow",
	"threw": "throw", "thrown": "throw", "struck": "strike", "shook": "shake",
	"shaken": "shake", "tore": "tear", "torn": "tear", "froze": "freeze",
	"frozen": "freeze", "ran": "run", "flew": "fly", "flown": "fly", "sang": "sing",
	"sung": "sing", "drove": "drive", "driven": "drive", "drank": "drink",
	"drunk": "drink", "ate": "eat", "eaten": "eat", "bit": "bite", "bitten": "bite",
	"spat": "spit", "slid": "slide", "swung": "swing", "stuck": "stick",
	"dug": "dig", "burnt": "burn", "lit": "light", "wept": "weep", "swam": "swim",
	"rode": "ride", "stole": "steal", "woke": "wake", "hung": "hang", "beaten": "beat",
	"knelt": "kneel", "crept": "creep", "sprang": "spring", "leapt": "leap",
	"dived": "dive", "taken": "take", "took": "take",
	"wolves": "wolf", "mice": "mouse", "geese": "goose", "teeth": "tooth",
	"feet": "footsteps", "foot": "footsteps", "footstep": "footsteps", "men": "man", "women": "woman",
	"children": "child", "kids": "kid", "leaves": "leaf", "knives": "knife",
	"hooves": "hoof", "shelves": "shelf", "oxen": "ox", "lives": "life",
	"calves": "calf", "halves": "half", "wives": "wife", "thieves": "thief",
	"buses": "bus", "glasses": "glass", "axes": "axe", "people": "people",
	"clothes": "clothes", "scissors": "scissors", "footsteps": "footsteps",
	"fireworks": "firework", "tyre": "tire", "tyres": "tire", "aeroplane": "airplane",
	"whirr": "whir", "whirring": "whir", "whirred": "whir", "whizz": "whiz",
	"whizzing": "whiz", "whizzes": "whiz", "telephoned": "telephone",
	"lying": "lie", "dying": "die", "tying": "tie",
	"type": "typing", "types": "typing", "typed": "typing",
	"winding": "winding", "wound": "wound",
	"sheep": "sheep", "fish": "fish", "deer": "deer", "series": "series", "news": "news",
}

var lexicon = parseLexicon(lexiconTable)

// parseLexicon reads the table; a malformed line is a bug, and panics.
func parseLexicon(table string) map[string]word {
	lex := map[string]word{}
	for i, line := range strings.Split(table, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "|")
		head := strings.Fields(cols[0])
		if len(cols) != 4 || len(head) != 2 || len(head[1]) != 1 || !strings.Contains("nvbpa", head[1]) {
			panic(fmt.Sprintf("refine: lexicon line %d is malformed: %q", i, line))
		}
		if _, dup := lex[head[0]]; dup {
			panic(fmt.Sprintf("refine: lexicon line %d repeats %q", i, head[0]))
		}
		syn, vsyn, splitSyn := strings.Cut(cols[1], ";")
		hyper, vhyper, splitHyper := strings.Cut(cols[2], ";")
		if splitSyn != splitHyper || (splitSyn && head[1] != "b") {
			panic(fmt.Sprintf("refine: lexicon line %d: only a word of kind b splits both its synonyms and hypernym: %q", i, line))
		}
		if !splitSyn {
			vsyn, vhyper = syn, hyper
		}
		lex[head[0]] = word{
			kind:   kind(head[1][0]),
			syn:    list(syn),
			hyper:  strings.TrimSpace(hyper),
			acts:   list(cols[3]),
			vsyn:   list(vsyn),
			vhyper: strings.TrimSpace(vhyper),
		}
	}
	return lex
}

// list splits a comma-separated column.
func list(col string) []string {
	var out []string
	for _, s := range strings.Split(col, ",") {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
