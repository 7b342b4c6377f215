import type { Jurisdiction, ProfileContent, TradingStatus } from '../shared/companies/profile';
import { addDays, daysBetween } from '../shared/register/calendar';
import { demoProfile } from './demo-profile';
import { type Random, seededRandom } from './random';
import { DEMO_AS_OF, type RegisterFacts } from './register-facts';

/**
 * Deterministic synthetic registers. No public sample of the Irish CRO register exists, so IE
 * companies are generated; GB companies are generated only in bulk for benchmarks, in a number range
 * the real sample (data/gb-companies-2024-01.csv, numbers from 15,3xx,xxx and prefixed ones) does
 * not touch: 09000000 to 09999999.
 *
 * Numbers are a permutation of the range (i · stride + offset mod size, with stride coprime to the
 * size), so every company of one run has its own number; the incorporation date follows the
 * number, as registers issue numbers in sequence.
 */

// ---------------------------------------------------------------------------------------------
// Word lists

interface Place {
  readonly name: string;
  readonly irish: string;
  readonly county: string;
  /** Eircode routing key. */
  readonly routingKey: string;
}

const IRISH_PLACES: readonly Place[] = [
  { name: 'Dublin', irish: 'Baile Átha Cliath', county: 'Dublin', routingKey: 'D02' },
  { name: 'Liffey', irish: 'An Life', county: 'Dublin', routingKey: 'D08' },
  { name: 'Howth', irish: 'Binn Éadair', county: 'Dublin', routingKey: 'D13' },
  { name: 'Swords', irish: 'Sord', county: 'Dublin', routingKey: 'K67' },
  { name: 'Cork', irish: 'Corcaigh', county: 'Cork', routingKey: 'T12' },
  { name: 'Kinsale', irish: 'Cionn tSáile', county: 'Cork', routingKey: 'P17' },
  { name: 'Bantry', irish: 'Beanntraí', county: 'Cork', routingKey: 'P75' },
  { name: 'Galway', irish: 'Gaillimh', county: 'Galway', routingKey: 'H91' },
  { name: 'Connemara', irish: 'Conamara', county: 'Galway', routingKey: 'H91' },
  { name: 'Limerick', irish: 'Luimneach', county: 'Limerick', routingKey: 'V94' },
  { name: 'Shannon', irish: 'Sionainn', county: 'Clare', routingKey: 'V14' },
  { name: 'Ennis', irish: 'Inis', county: 'Clare', routingKey: 'V95' },
  { name: 'Waterford', irish: 'Port Láirge', county: 'Waterford', routingKey: 'X91' },
  { name: 'Kilkenny', irish: 'Cill Chainnigh', county: 'Kilkenny', routingKey: 'R95' },
  { name: 'Wexford', irish: 'Loch Garman', county: 'Wexford', routingKey: 'Y35' },
  { name: 'Sligo', irish: 'Sligeach', county: 'Sligo', routingKey: 'F91' },
  { name: 'Athlone', irish: 'Baile Átha Luain', county: 'Westmeath', routingKey: 'N37' },
  { name: 'Mullingar', irish: 'An Muileann gCearr', county: 'Westmeath', routingKey: 'N91' },
  { name: 'Tralee', irish: 'Trá Lí', county: 'Kerry', routingKey: 'V92' },
  { name: 'Killarney', irish: 'Cill Airne', county: 'Kerry', routingKey: 'V93' },
  { name: 'Dingle', irish: 'An Daingean', county: 'Kerry', routingKey: 'V92' },
  { name: 'Dundalk', irish: 'Dún Dealgan', county: 'Louth', routingKey: 'A91' },
  { name: 'Drogheda', irish: 'Droichead Átha', county: 'Louth', routingKey: 'A92' },
  { name: 'Boyne', irish: 'An Bhóinn', county: 'Meath', routingKey: 'C15' },
  { name: 'Navan', irish: 'An Uaimh', county: 'Meath', routingKey: 'C15' },
  { name: 'Letterkenny', irish: 'Leitir Ceanainn', county: 'Donegal', routingKey: 'F92' },
  { name: 'Donegal', irish: 'Dún na nGall', county: 'Donegal', routingKey: 'F94' },
  { name: 'Castlebar', irish: 'Caisleán an Bharraigh', county: 'Mayo', routingKey: 'F23' },
  { name: 'Westport', irish: 'Cathair na Mart', county: 'Mayo', routingKey: 'F28' },
  { name: 'Clonmel', irish: 'Cluain Meala', county: 'Tipperary', routingKey: 'E91' },
  { name: 'Carlow', irish: 'Ceatharlach', county: 'Carlow', routingKey: 'R93' },
  { name: 'Portlaoise', irish: 'Port Laoise', county: 'Laois', routingKey: 'R32' },
  { name: 'Tullamore', irish: 'Tulach Mhór', county: 'Offaly', routingKey: 'R35' },
  { name: 'Bray', irish: 'Bré', county: 'Wicklow', routingKey: 'A98' },
  { name: 'Wicklow', irish: 'Cill Mhantáin', county: 'Wicklow', routingKey: 'A67' },
  { name: 'Naas', irish: 'An Nás', county: 'Kildare', routingKey: 'W91' },
  { name: 'Cavan', irish: 'An Cabhán', county: 'Cavan', routingKey: 'H12' },
  { name: 'Monaghan', irish: 'Muineachán', county: 'Monaghan', routingKey: 'H18' },
  { name: 'Longford', irish: 'An Longfort', county: 'Longford', routingKey: 'N39' },
  { name: 'Roscommon', irish: 'Ros Comáin', county: 'Roscommon', routingKey: 'F42' },
  { name: 'Leitrim', irish: 'Liatroim', county: 'Leitrim', routingKey: 'N41' },
];

const IRISH_SURNAMES = [
  'Murphy',
  'Kelly',
  "O'Sullivan",
  'Walsh',
  "O'Brien",
  'Byrne',
  'Ryan',
  "O'Connor",
  "O'Neill",
  "O'Reilly",
  'Doyle',
  'McCarthy',
  'Gallagher',
  "O'Doherty",
  'Kennedy',
  'Lynch',
  'Murray',
  'Quinn',
  'Moore',
  'McLoughlin',
  'Carroll',
  'Connolly',
  'Daly',
  "O'Connell",
  'Dunne',
  'Brennan',
  'Burke',
  'Collins',
  'Fitzgerald',
  'Maguire',
  'Nolan',
  'Flynn',
  "O'Callaghan",
  "O'Donnell",
  'Duffy',
  "O'Mahony",
  'Boyle',
  'Healy',
  "O'Shea",
  'Sweeney',
  'Hayes',
  'Kavanagh',
  'Power',
  'McGrath',
  'Moran',
  'Brady',
  'Casey',
  'Foley',
  'Fitzpatrick',
  "O'Leary",
  'McDonnell',
  'MacMahon',
  'Donnelly',
  "O'Regan",
  "O'Donovan",
  'Flanagan',
  'Barry',
  'Kenny',
  'Sheehan',
  'Whelan',
  'Cullen',
  'Keane',
  'Maher',
  'McKenna',
  'Hogan',
  "O'Keeffe",
  'McNamara',
  'Moloney',
  "O'Rourke",
  'Buckley',
  "O'Dwyer",
  'Ní Bhriain',
  'Mac Giolla',
  'Ó Sé',
];

interface Trade {
  readonly words: string;
  readonly irish: string;
  /** GB: UK SIC 2007 (5 digits); IE: NACE Rev. 2 (4 digits), the first four digits of the same class. */
  readonly sic: string;
}

const TRADES: readonly Trade[] = [
  { words: 'Construction', irish: 'Tógáil', sic: '41201' },
  { words: 'Building Contractors', irish: 'Conraitheoirí Tógála', sic: '41202' },
  { words: 'Civil Engineering', irish: 'Innealtóireacht Shibhialta', sic: '42990' },
  { words: 'Electrical Services', irish: 'Seirbhísí Leictreacha', sic: '43210' },
  { words: 'Plumbing & Heating', irish: 'Pluiméireacht', sic: '43220' },
  { words: 'Roofing', irish: 'Díonta', sic: '43910' },
  { words: 'Joinery', irish: 'Siúinéireacht', sic: '16230' },
  { words: 'Engineering', irish: 'Innealtóireacht', sic: '71129' },
  { words: 'Logistics', irish: 'Lóistíocht', sic: '52290' },
  { words: 'Haulage', irish: 'Iompar Earraí', sic: '49410' },
  { words: 'Motors', irish: 'Mótair', sic: '45111' },
  { words: 'Pharmacy', irish: 'Cógaslann', sic: '47730' },
  { words: 'Dental Care', irish: 'Cúram Fiacla', sic: '86230' },
  { words: 'Veterinary Clinic', irish: 'Clinic Tréidliachta', sic: '75000' },
  { words: 'Properties', irish: 'Maoin', sic: '68209' },
  { words: 'Property Holdings', irish: 'Sealúchais Mhaoine', sic: '68100' },
  { words: 'Investments', irish: 'Infheistíochtaí', sic: '64209' },
  { words: 'Consulting', irish: 'Comhairleoireacht', sic: '70229' },
  { words: 'Software', irish: 'Bogearraí', sic: '62012' },
  { words: 'Technologies', irish: 'Teicneolaíocht', sic: '62020' },
  { words: 'Foods', irish: 'Bia', sic: '10890' },
  { words: 'Dairies', irish: 'Déiríocht', sic: '10511' },
  { words: 'Bakery', irish: 'Bácús', sic: '10710' },
  { words: 'Hotels', irish: 'Óstáin', sic: '55100' },
  { words: 'Bar & Restaurant', irish: 'Beár agus Bialann', sic: '56101' },
  { words: 'Catering', irish: 'Lónadóireacht', sic: '56210' },
  { words: 'Seafoods', irish: 'Bia Mara', sic: '10200' },
  { words: 'Fisheries', irish: 'Iascaireacht', sic: '03110' },
  { words: 'Farm Supplies', irish: 'Soláthairtí Feirme', sic: '46610' },
  { words: 'Agri Services', irish: 'Seirbhísí Talmhaíochta', sic: '01610' },
  { words: 'Plant Hire', irish: 'Fruiliú Innealra', sic: '77320' },
  { words: 'Recruitment', irish: 'Earcaíocht', sic: '78109' },
  { words: 'Accountancy', irish: 'Cuntasaíocht', sic: '69201' },
  { words: 'Marketing', irish: 'Margaíocht', sic: '73110' },
  { words: 'Media', irish: 'Meáin', sic: '59113' },
  { words: 'Design', irish: 'Dearadh', sic: '74100' },
  { words: 'Print', irish: 'Clódóireacht', sic: '18129' },
  { words: 'Healthcare', irish: 'Cúram Sláinte', sic: '86900' },
  { words: 'Home Care', irish: 'Cúram Baile', sic: '88100' },
  { words: 'Renewables', irish: 'Fuinneamh In-athnuaite', sic: '35110' },
  { words: 'Solar', irish: 'Grian', sic: '43210' },
  { words: 'Timber', irish: 'Adhmad', sic: '46730' },
  { words: 'Landscaping', irish: 'Tírdhreachú', sic: '81300' },
  { words: 'Security', irish: 'Slándáil', sic: '80100' },
  { words: 'Cleaning Services', irish: 'Seirbhísí Glantacháin', sic: '81210' },
  { words: 'Childcare', irish: 'Cúram Leanaí', sic: '88910' },
  { words: 'Fitness', irish: 'Aclaíocht', sic: '93130' },
  { words: 'Travel', irish: 'Taisteal', sic: '79110' },
  { words: 'Distillery', irish: 'Drioglann', sic: '11010' },
  { words: 'Brewing', irish: 'Grúdlann', sic: '11050' },
  { words: 'Crafts', irish: 'Ceardaíocht', sic: '32990' },
  { words: 'Textiles', irish: 'Teicstílí', sic: '13990' },
  { words: 'Trading', irish: 'Trádáil', sic: '46900' },
];

const IRISH_COMMUNITY_BODIES = [
  'Community Development',
  'Family Resource Centre',
  'GAA Club',
  'Tidy Towns',
  'Arts Festival',
  'Rowing Club',
  'Community Childcare',
  'Enterprise Centre',
  'Heritage Society',
  'Sports Partnership',
  "Men's Shed",
  'Youth Project',
];

/** GB places with a postcode area of theirs, so that addresses hang together. */
const GB_PLACES: readonly (readonly [string, string])[] = [
  ['London', 'EC1V'],
  ['Manchester', 'M1'],
  ['Birmingham', 'B1'],
  ['Leeds', 'LS1'],
  ['Bristol', 'BS1'],
  ['Sheffield', 'S1'],
  ['Liverpool', 'L1'],
  ['Newcastle', 'NE1'],
  ['Nottingham', 'NG1'],
  ['Leicester', 'LE1'],
  ['Cardiff', 'CF10'],
  ['Swansea', 'SA1'],
  ['Glasgow', 'G1'],
  ['Edinburgh', 'EH1'],
  ['Aberdeen', 'AB10'],
  ['Belfast', 'BT1'],
  ['Norwich', 'NR1'],
  ['Exeter', 'EX1'],
  ['Plymouth', 'PL1'],
  ['York', 'YO1'],
  ['Oxford', 'OX1'],
  ['Cambridge', 'CB1'],
  ['Brighton', 'BN1'],
  ['Southampton', 'SO14'],
  ['Portsmouth', 'PO1'],
  ['Reading', 'RG1'],
  ['Coventry', 'CV1'],
  ['Hull', 'HU1'],
  ['Bradford', 'BD1'],
  ['Derby', 'DE1'],
  ['Wolverhampton', 'WV1'],
  ['Sunderland', 'SR1'],
  ['Preston', 'PR1'],
  ['Bath', 'BA1'],
  ['Chester', 'CH1'],
  ['Durham', 'DH1'],
  ['Kent', 'ME1'],
  ['Essex', 'CM1'],
  ['Yorkshire', 'HG1'],
  ['Cornwall', 'TR1'],
  ['Devon', 'EX4'],
  ['Pennine', 'HX1'],
  ['Thames', 'SL4'],
  ['Mersey', 'WA1'],
  ['Severn', 'GL1'],
  ['Cotswold', 'GL7'],
  ['Chiltern', 'HP5'],
  ['Highland', 'IV1'],
];

const GB_SURNAMES = [
  'Smith',
  'Jones',
  'Taylor',
  'Brown',
  'Williams',
  'Wilson',
  'Johnson',
  'Davies',
  'Robinson',
  'Wright',
  'Thompson',
  'Evans',
  'Walker',
  'White',
  'Roberts',
  'Green',
  'Hall',
  'Wood',
  'Jackson',
  'Clarke',
  'Patel',
  'Khan',
  'Lewis',
  'James',
  'Phillips',
  'Mason',
  'Mitchell',
  'Rose',
  'Davis',
  'Rodriguez',
  'Cox',
  'Alexander',
  'Morgan',
  'Moore',
  'Hughes',
  'Ahmed',
  'Singh',
  'Ali',
  'Begum',
  'Shah',
  'Hussain',
  'Edwards',
  'Turner',
  'Hill',
  'Cooper',
  'Ward',
  'Morris',
  'King',
  'Harris',
  'Martin',
  'Baker',
  'Campbell',
  'Stewart',
  'MacDonald',
  'Fraser',
  'Reid',
  'Murray',
];

const STREETS = [
  'Main Street',
  'High Street',
  'Church Road',
  'Station Road',
  'Mill Lane',
  'Bridge Street',
  'Market Square',
  'Park Road',
  'Green Lane',
  'Quay Street',
];
const EIRCODE_CHARACTERS = 'ACDEFHKNPRTVWXY0123456789';

// ---------------------------------------------------------------------------------------------
// Register shapes

interface StatusChoice {
  readonly registerStatus: string;
  readonly status: TradingStatus['status'];
}

const IE_STATUSES: readonly (readonly [StatusChoice, number])[] = [
  [{ registerStatus: 'Normal', status: 'active' }, 0.86],
  [{ registerStatus: 'Strike Off Listed', status: 'active' }, 0.04],
  [{ registerStatus: 'Liquidation', status: 'liquidation' }, 0.05],
  [{ registerStatus: 'Receivership', status: 'receivership' }, 0.02],
  [{ registerStatus: 'Examinership', status: 'administration' }, 0.01],
  [{ registerStatus: 'Dissolved', status: 'dissolved' }, 0.02],
];

const GB_STATUSES: readonly (readonly [StatusChoice, number])[] = [
  [{ registerStatus: 'Active', status: 'active' }, 0.86],
  [{ registerStatus: 'Active - Proposal to Strike off', status: 'active' }, 0.04],
  [{ registerStatus: 'Liquidation', status: 'liquidation' }, 0.04],
  [{ registerStatus: 'In Administration', status: 'administration' }, 0.01],
  [{ registerStatus: 'Receiver Action', status: 'receivership' }, 0.005],
  [{ registerStatus: 'Voluntary Arrangement', status: 'voluntary_arrangement' }, 0.005],
  [{ registerStatus: 'Dissolved', status: 'dissolved' }, 0.04],
];

/** Legal suffixes per IE company type, with how often each spelling is chosen. */
const IE_SUFFIXES: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  ltd: [
    ['LIMITED', 0.7],
    ['LTD', 0.2],
    ['TEORANTA', 0.1],
  ],
  dac: [
    ['DAC', 0.6],
    ['DESIGNATED ACTIVITY COMPANY', 0.3],
    ['CUIDEACHTA GHNÍOMHAÍOCHTA AINMNITHE', 0.1],
  ],
  plc: [
    ['PLC', 0.8],
    ['PUBLIC LIMITED COMPANY', 0.2],
  ],
  clg: [
    ['CLG', 0.6],
    ['COMPANY LIMITED BY GUARANTEE', 0.4],
  ],
  ulc: [
    ['UNLIMITED COMPANY', 0.6],
    ['UC', 0.4],
  ],
};

/** The date a register issued a number, by interpolating between known (number, date) points. */
function issuedOn(number: number, milestones: readonly (readonly [number, string])[], random: Random): string {
  const upper = milestones.findIndex(([milestone]) => milestone >= number);
  const [fromNumber, fromDate] = milestones[Math.max(0, upper - 1)] as (typeof milestones)[number];
  const [toNumber, toDate] = milestones[upper < 0 ? milestones.length - 1 : Math.max(upper, 1)] as (typeof milestones)[number];
  const share = toNumber === fromNumber ? 0 : (number - fromNumber) / (toNumber - fromNumber);
  return addDays(fromDate, Math.round(share * daysBetween(fromDate, toDate)) + random.int(-3, 3));
}

/** CRO numbers by date of issue, approximately. */
const CRO_MILESTONES: readonly (readonly [number, string])[] = [
  [1, '1922-01-02'],
  [100_000, '1984-06-01'],
  [200_000, '1993-03-01'],
  [300_000, '1999-01-04'],
  [400_000, '2005-03-01'],
  [500_000, '2011-07-01'],
  [600_000, '2017-02-01'],
  [700_000, '2021-06-01'],
  [800_000, '2025-06-01'],
];

/** Companies House numbers 09000000-09999999 by date of issue, approximately. */
const GB_09_MILESTONES: readonly (readonly [number, string])[] = [
  [9_000_000, '2014-04-22'],
  [9_500_000, '2015-03-31'],
  [9_999_999, '2016-02-04'],
];

const IE_RANGE = { first: 1, size: 800_000 };
const GB_RANGE = { first: 9_000_000, size: 1_000_000 };

/** Strides for the number permutation: primes, so coprime with the range sizes (2^a · 5^b). */
const STRIDES = [7_919, 104_729, 224_737, 350_377, 479_909, 611_953];

function* permutedNumbers(range: { first: number; size: number }, count: number, seed: number): Generator<number> {
  if (!Number.isInteger(count) || count < 0) throw new RangeError('count must be a whole number');
  if (count > range.size) throw new RangeError(`at most ${range.size} companies can be generated in this number range`);
  const random = seededRandom(`numbers#${range.first}#${seed}`);
  const stride = random.pick(STRIDES);
  const offset = random.int(0, range.size - 1);
  for (let index = 0; index < count; index++) yield range.first + ((index * stride + offset) % range.size);
}

function eircode(place: Place, random: Random): string {
  let unique = '';
  for (let index = 0; index < 4; index++) unique += EIRCODE_CHARACTERS[random.int(0, EIRCODE_CHARACTERS.length - 1)];
  return `${place.routingKey} ${unique}`;
}

/** The dissolution date of an ended company: at least six months after incorporation, before the assessment date. */
function dissolution(incorporatedOn: string, random: Random): string {
  const earliest = addDays(incorporatedOn, 180);
  const room = daysBetween(earliest, DEMO_AS_OF);
  return room <= 0 ? DEMO_AS_OF : addDays(earliest, random.int(0, room - 1));
}

function statusFacts(choice: StatusChoice, incorporatedOn: string, random: Random): Pick<RegisterFacts, 'tradingStatus' | 'dissolvedOn'> {
  const dissolvedOn = choice.status === 'dissolved' ? dissolution(incorporatedOn, random) : null;
  const since = choice.status === 'dissolved' ? dissolvedOn : choice.status === 'active' ? incorporatedOn : null;
  return { tradingStatus: { status: choice.status, registerStatus: choice.registerStatus, since }, dissolvedOn };
}

// ---------------------------------------------------------------------------------------------
// Ireland

function irishName(companyType: string, random: Random): { name: string; trade: Trade; place: Place } {
  const place = random.pick(IRISH_PLACES);
  const trade = random.pick(TRADES);
  const suffixes = IE_SUFFIXES[companyType] ?? IE_SUFFIXES.ltd ?? [];
  if (companyType === 'clg') {
    return { name: `${place.name} ${random.pick(IRISH_COMMUNITY_BODIES)} ${random.weighted(suffixes)}`.toUpperCase(), trade, place };
  }
  // About one company in twelve is named in Irish.
  if (companyType === 'ltd' && random.chance(0.08)) {
    return { name: `${`${trade.irish} ${place.irish}`.toUpperCase()} TEORANTA`, trade, place };
  }
  if (companyType === 'dac' && random.chance(0.08)) {
    return { name: `${`${trade.irish} ${place.irish}`.toUpperCase()} CUIDEACHTA GHNÍOMHAÍOCHTA AINMNITHE`, trade, place };
  }
  const surname = random.pick(IRISH_SURNAMES);
  const stem = random.weighted<() => string>([
    [() => `${surname} ${trade.words}`, 4],
    [() => `${place.name} ${trade.words}`, 3],
    [() => `${surname} & ${random.pick(IRISH_SURNAMES)} ${trade.words}`, 1],
    [() => `${surname} Brothers ${trade.words}`, 1],
    [() => `${place.name} ${surname} ${trade.words}`, 1],
    [() => `${String.fromCharCode(65 + random.int(0, 25))}.${String.fromCharCode(65 + random.int(0, 25))}. ${surname} ${trade.words}`, 1],
  ])();
  return { name: `${stem} ${random.weighted(suffixes)}`.toUpperCase(), trade, place };
}

function irishFacts(number: number, seed: number): RegisterFacts {
  const random = seededRandom(`IE#${number}#facts#${seed}`);
  const companyType = random.weighted([
    ['ltd', 0.86],
    ['clg', 0.06],
    ['dac', 0.05],
    ['ulc', 0.02],
    ['plc', 0.01],
  ]);
  const { name, trade, place } = irishName(companyType, random);
  const incorporatedOn = issuedOn(number, CRO_MILESTONES, random);
  const town = random.pick(IRISH_PLACES.filter((candidate) => candidate.county === place.county));
  return {
    jurisdiction: 'IE',
    companyNumber: String(number),
    name,
    companyType,
    companySubtype: null,
    incorporatedOn,
    sicCodes: [trade.sic.slice(0, 4)],
    registeredOffice: `${random.int(1, 120)} ${random.pick(STREETS)}, ${town.name}, Co. ${town.county}, ${eircode(town, random)}`,
    ...statusFacts(random.weighted(IE_STATUSES), incorporatedOn, random),
  };
}

/**
 * Irish companies with unique CRO numbers spread over 1-800,000, named, typed and dated plausibly,
 * with demo blocks in EUR. The same count and seed always give the same companies.
 */
export function* generateIrishCompanies(count: number, seed = 1): Generator<ProfileContent> {
  for (const number of permutedNumbers(IE_RANGE, count, seed)) yield demoProfile(irishFacts(number, seed), seed);
}

// ---------------------------------------------------------------------------------------------
// Great Britain

function britishFacts(number: number, seed: number): RegisterFacts {
  const random = seededRandom(`GB#${number}#facts#${seed}`);
  const companyType = random.weighted([
    ['ltd', 0.93],
    ['private-limited-guarant-nsc', 0.05],
    ['private-unlimited', 0.015],
    ['plc', 0.005],
  ]);
  const trade = random.pick(TRADES);
  const [place, postcodeArea] = random.pick(GB_PLACES);
  const surname = random.pick(GB_SURNAMES);
  const stem = random.weighted<() => string>([
    [() => `${surname} ${trade.words}`, 4],
    [() => `${place} ${trade.words}`, 3],
    [() => `${surname} & ${random.pick(GB_SURNAMES)} ${trade.words}`, 1],
    [() => `${place} ${surname} ${trade.words}`, 1],
    [() => `${surname} ${trade.words} (UK)`, 1],
  ])();
  const suffix =
    companyType === 'plc'
      ? 'PLC'
      : companyType === 'private-unlimited'
        ? ''
        : random.weighted([
            ['LIMITED', 0.6],
            ['LTD', 0.4],
          ]);
  const incorporatedOn = issuedOn(number, GB_09_MILESTONES, random);
  return {
    jurisdiction: 'GB',
    companyNumber: String(number).padStart(8, '0'),
    name: `${stem} ${suffix}`.trim().toUpperCase(),
    companyType,
    companySubtype: null,
    incorporatedOn,
    sicCodes: [trade.sic],
    registeredOffice: `${random.int(1, 250)} ${random.pick(STREETS)} ${place} ${postcodeArea} ${random.int(1, 9)}${String.fromCharCode(65 + random.int(0, 25))}${String.fromCharCode(65 + random.int(0, 25))} United Kingdom`,
    ...statusFacts(random.weighted(GB_STATUSES), incorporatedOn, random),
  };
}

/**
 * Synthetic GB companies for benchmarks, numbered 09000000-09999999 (at most 1,000,000), a range
 * the real sample does not use. Deterministic in (count, seed).
 */
export function* generateBritishCompanies(count: number, seed = 1): Generator<ProfileContent> {
  for (const number of permutedNumbers(GB_RANGE, count, seed)) yield demoProfile(britishFacts(number, seed), seed);
}

/** The generator for a jurisdiction's synthetic register. */
export function generateCompanies(jurisdiction: Jurisdiction, count: number, seed = 1): Generator<ProfileContent> {
  return jurisdiction === 'IE' ? generateIrishCompanies(count, seed) : generateBritishCompanies(count, seed);
}
