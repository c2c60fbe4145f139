/**
 * The most common passwords of public breach corpora (heads of the RockYou, NCSC "100k" and
 * yearly "worst passwords" lists), lower-cased. Short ones are kept although the length rule
 * already refuses them, so the list stays useful if that rule changes.
 */
const LIST = `
123456 password 12345678 qwerty 123456789 12345 1234 111111 1234567 dragon 123123 baseball abc123
football monkey letmein 696969 shadow master 666666 qwertyuiop 123321 mustang 1234567890 michael
654321 superman 1qaz2wsx 7777777 121212 000000 qazwsx 123qwe killer trustno1 jordan jennifer
zxcvbnm asdfgh hunter buster soccer harley batman andrew tigger sunshine iloveyou 2000 charlie
robert thomas hockey ranger daniel starwars klaster 112233 george computer michelle jessica pepper
1111 zxcvbn 555555 11111111 131313 freedom 777777 pass maggie 159753 aaaaaa ginger princess joshua
cheese amanda summer love ashley nicole chelsea biteme matthew access yankees 987654321 dallas
austin thunder taylor matrix mobilemail mom monitor monitoring montana moon moscow william
corvette hello martin heather secret merlin diamond 1234qwer gfhjkm hammer silver 222222 88888888
anthony justin test bailey q1w2e3r4t5 patrick internet scooter orange 11111 golfer cookie richard
samantha bigdog guitar jackson whatever mickey chicken sparky snoopy maverick phoenix camaro peanut
morgan welcome falcon cowboy ferrari samsung andrea smokey steelers joseph mercedes dakota arsenal
eagles melissa boomer booboo spider nascar monster tigers yellow xxxxxx 123123123 gateway marina
diablo bulldog qwer1234 compaq purple hardcore banana junior hannah 123654 porsche lakers iceman
money cowboys 987654 london tennis 999999 ncc1701 coffee scooby 0000 miller boston q1w2e3r4
brandon yamaha chester mother forever johnny edward 333333 oliver redsox player nikita knight
fender barney midnight please brandy chicago badboy slayer rangers charles angel flower bigdaddy
rabbit wizard jasper enter rachel chris steven winner adidas victoria natasha 1q2w3e4r jasmine
winter prince panties marine ghbdtn fishing cocacola casper james 232323 raiders 888888 marlboro
gandalf asdfasdf crystal 87654321 12344321 golden 8675309 panther lauren angela bitch spanky
thx1138 angels madison winston shannon mike toyota blowjob jordan23 canada sophie apples dick tiger
razz 123abc pokemon qazxsw 55555 qwaszx muffin johnson murphy cooper jonathan liverpoo david
danielle 159357 jackie 1990 123456a 789456 turtle horny abcd1234 scorpion qazwsxedc 101010 butter
carlos password1 dennis slipknot qwerty123 booger asdf 1991 black startrek 12341234 cameron
newyork rainbow nathan john 1992 rocket viking redskins butthead asdfghjkl 1212 sierra peaches
gemini doctor wilson sandra helpme qwertyui victor florida dolphin pookie captain tucker blue
liverpool theman bandit dolphins maddog packers jaguar lovers nicholas united tiffany maxwell
zzzzzz nirvana jeremy suckit stupid porn monica elephant giants jackass hotdog rosebud success
debbie mountain 444444 xxxxxxxx warrior 1q2w3e4r5t q1w2e3 123456q albert metallic lucky azerty
7777 shithead alex bond007 alexis 1111111 samson 5150 willie scorpio bonnie gators benjamin voodoo
driver dexter 2112 jason calvin freddy 212121 creative 12345a sydney rush2112 1989 asdfghjk red123
blowme abcdef passw0rd p@ssw0rd p@ssword passw0rd1 password12 password123 password1234 qwerty1
qwerty12 qwerty1234 iloveyou1 iloveyou2 letmein1 welcome1 welcome123 admin admin123 administrator
root toor changeme default guest login master123 abc12345 abcd12345 1qaz2wsx3edc zaq12wsx
zaq1zaq1 1q2w3e 1q2w3e4r5t6y qwe123 qweasd qweasdzxc asd123 zxc123 a123456 a12345678 aa123456
123456789a 1234567890a 11223344 12121212 123123a 147258369 147258 159951 1qazxsw2 987654321a
00000000 99999999 77777777 66666666 55555555 44444444 33333333 22222222 12345678910 0987654321
superman1 batman123 football1 baseball1 princess1 sunshine1 monkey123 dragon123 shadow123
trustno1! iloveu lovely babygirl 123456789q michelle1 jessica1 fuckyou fuckyou1 secret123
qwertyuiop123 starwars1 pokemon123 minecraft minecraft123 computer1 internet1 letmein123
welcome2024 welcome2025 password2024 password2025 summer2024 summer2025 winter2024 winter2025
spring2024 autumn2024 january february december 1qaz!qaz q1w2e3r4t5y6 asdf1234 zxcv1234
asdfqwer qwerasdf 1234abcd abcdefg abcdefgh abcdefghi 1a2b3c4d a1b2c3d4 aaaaaaaa password!
unknown nothing letmeinnow iloveme loveyou trustme whatever1 cheese123 chocolate butterfly
flower123 sweety sweetheart angel123 football123 soccer123 hockey123 baseball123 basketball
michael1 charlie1 jordan1 daniel1 andrew1 joshua1 matthew1 hunter1 thomas1 robert1 ashley1
qwerty! !qaz2wsx 1234567a 1234567q zaq!2wsx google facebook linkedin twitter
instagram youtube netflix amazon apple123 microsoft iphone samsung1 nokia1234 changeme123
temp1234 test1234 test123 testing testing123 demo1234 user1234 guest123 hello123 hello1234
`;

// the set is made with the first password checked (a sign-up, a password change), not by every
// start of the server: splitting and hashing the list was ≈0.5 ms of each start
let common: Set<string> | undefined;
const commonSet = (): Set<string> => (common ??= new Set(LIST.split(/\s+/).filter(Boolean)));

/** Whether a password is on the list of the most common ones (case-insensitive). */
export function isCommonPassword(password: string): boolean {
  return commonSet().has(password.toLowerCase());
}

/** How many passwords the list holds (tests check the list is substantial). */
export function commonPasswordCount(): number {
  return commonSet().size;
}
