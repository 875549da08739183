// The text printed on the OCR quality benchmark's pages (scripts/quality-corpus.mjs). The prose is in the public
// domain: Victor Hugo, Les Misérables (1862), I, i, 1; Jean-Jacques Rousseau, Les Confessions (1782), I; Gustave
// Flaubert, Madame Bovary (1857), I, 1; Caesar, De bello Gallico I, 1; Cicero, In Catilinam I, 1; Charles Dickens,
// A Tale of Two Cities (1859), I, 1. Headings and footnotes are our own. French prose was chosen for its accents
// (é è ê à â ç ô û œ, and capitals with accents in the headings): they are what camera pages lose first.
//
// Each page: a running head, an optional title set apart by a wide gap (the crop must keep it), paragraphs, footnotes
// (`[n]` in the text is the call, printed as a superscript digit) and a folio.
import { frenchSpacing } from './sample-text.mjs';

export const QUALITY_PAGES = [
  {
    id: 'hugo',
    language: 'fra',
    font: 'Nimbus Roman',
    runningHead: 'LES MISÉRABLES',
    title: ['LIVRE PREMIER — UN JUSTE', 'I. MONSIEUR MYRIEL'],
    folio: 17,
    paragraphs: [
      'En 1815, M. Charles-François-Bienvenu Myriel était évêque de Digne[1]. C’était un vieillard d’environ soixante-quinze ans ; il occupait le siège de Digne depuis 1806.',
      'Quoique ce détail ne touche en aucune manière au fond même de ce que nous avons à raconter, il n’est peut-être pas inutile, ne fût-ce que pour être exact en tout, d’indiquer ici les bruits et les propos qui avaient couru sur son compte au moment où il était arrivé dans le diocèse. Vrai ou faux, ce qu’on dit des hommes tient souvent autant de place dans leur vie et surtout dans leur destinée que ce qu’ils font.',
      'M. Myriel était fils d’un conseiller au parlement d’Aix ; noblesse de robe. On contait de lui que son père, le réservant pour hériter de sa charge, l’avait marié de fort bonne heure, à dix-huit ou vingt ans, suivant un usage assez répandu dans les familles parlementaires. Charles Myriel, nonobstant ce mariage, avait, disait-on, beaucoup fait parler de lui. Il était bien fait de sa personne, quoique d’assez petite taille, élégant, gracieux, spirituel ; toute la première partie de sa vie avait été donnée au monde et aux galanteries.',
      'La révolution survint, les événements se précipitèrent ; les familles parlementaires, décimées, chassées, traquées, se dispersèrent. M. Charles Myriel, dès les premiers jours de la révolution, émigra en Italie. Sa femme y mourut d’une maladie de poitrine dont elle était atteinte depuis longtemps. Ils n’avaient point d’enfants. Que se passa-t-il ensuite dans la destinée de M. Myriel ?',
    ],
    notes: { 1: 'Digne, chef-lieu des Basses-Alpes, où l’évêque arriva en 1806 ; le texte suit l’édition de 1862.' },
  },
  {
    id: 'rousseau',
    language: 'fra',
    font: 'P052',
    runningHead: 'LES CONFESSIONS',
    title: ['LIVRE PREMIER', 'L’ÂGE MÛR ET L’ENFANCE'],
    folio: 3,
    paragraphs: [
      'Je forme une entreprise qui n’eut jamais d’exemple, et dont l’exécution n’aura point d’imitateur. Je veux montrer à mes semblables un homme dans toute la vérité de la nature ; et cet homme, ce sera moi. Moi seul. Je sens mon cœur, et je connais les hommes. Je ne suis fait comme aucun de ceux que j’ai vus ; j’ose croire n’être fait comme aucun de ceux qui existent. Si je ne vaux pas mieux, au moins je suis autre.',
      'Je suis né à Genève en 1712, d’Isaac Rousseau, citoyen, et de Suzanne Bernard, citoyenne[1]. Un bien fort médiocre à partager entre quinze enfants ayant réduit presque à rien la portion de mon père, il n’avait pour subsister que son métier d’horloger, dans lequel il était à la vérité fort habile. Ma mère, fille du ministre Bernard, était plus riche ; elle avait de la sagesse et de la beauté : ce n’était pas sans peine que mon père l’avait obtenue. Leurs amours avaient commencé presque avec leur vie ; dès l’âge de huit à neuf ans ils se promenaient ensemble tous les soirs sur la Treille ; à dix ans ils ne pouvaient plus se quitter.',
      'Nous étions à l’Étude, quand le Proviseur entra, suivi d’un nouveau habillé en bourgeois et d’un garçon de classe qui portait un grand pupitre. Ceux qui dormaient se réveillèrent, et chacun se leva comme surpris dans son travail. Le nouveau, qui s’était tenu dans l’angle, derrière la porte, si bien qu’on l’apercevait à peine, était un gars de la campagne, d’une quinzaine d’années environ, et plus haut de taille qu’aucun de nous tous[2].',
    ],
    notes: {
      1: 'Sa mère mourut peu après sa naissance ; il fut élevé par son père et par une sœur de celui-ci.',
      2: 'Ce dernier paragraphe est tiré de Madame Bovary, où la même façon de commencer reçoit un tout autre ton.',
    },
  },
  {
    id: 'caesar',
    language: 'lat',
    font: 'DejaVu Serif',
    runningHead: 'COMMENTARII DE BELLO GALLICO',
    title: ['LIBER PRIMVS'],
    folio: 1,
    paragraphs: [
      'Gallia est omnis divisa in partes tres, quarum unam incolunt Belgae, aliam Aquitani, tertiam qui ipsorum lingua Celtae, nostra Galli appellantur. Hi omnes lingua, institutis, legibus inter se differunt. Gallos ab Aquitanis Garumna flumen, a Belgis Matrona et Sequana dividit[1].',
      'Horum omnium fortissimi sunt Belgae, propterea quod a cultu atque humanitate provinciae longissime absunt, minimeque ad eos mercatores saepe commeant atque ea quae ad effeminandos animos pertinent important, proximique sunt Germanis, qui trans Rhenum incolunt, quibuscum continenter bellum gerunt. Qua de causa Helvetii quoque reliquos Gallos virtute praecedunt, quod fere cotidianis proeliis cum Germanis contendunt, cum aut suis finibus eos prohibent aut ipsi in eorum finibus bellum gerunt.',
      'Quo usque tandem abutere, Catilina, patientia nostra? Quam diu etiam furor iste tuus nos eludet? Quem ad finem sese effrenata iactabit audacia? Nihilne te nocturnum praesidium Palati, nihil urbis vigiliae, nihil timor populi, nihil concursus bonorum omnium, nihil hic munitissimus habendi senatus locus, nihil horum ora voltusque moverunt? O tempora, o mores! Senatus haec intellegit, consul videt; hic tamen vivit.',
    ],
    notes: { 1: 'Garumna: la Garonne; Matrona: la Marne; Sequana: la Seine.' },
  },
  {
    id: 'dickens',
    language: 'eng',
    font: 'Nimbus Roman',
    runningHead: 'A TALE OF TWO CITIES',
    title: ['BOOK THE FIRST — RECALLED TO LIFE', 'I. THE PERIOD'],
    folio: 1,
    paragraphs: [
      'It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair, we had everything before us, we had nothing before us, we were all going direct to Heaven, we were all going direct the other way.',
      'There were a king with a large jaw and a queen with a plain face, on the throne of England; there were a king with a large jaw and a queen with a fair face, on the throne of France[1]. In both countries it was clearer than crystal to the lords of the State preserves of loaves and fishes, that things in general were settled for ever.',
      'It was the year of Our Lord one thousand seven hundred and seventy-five. Spiritual revelations were conceded to England at that favoured period, as at this. Mrs. Southcott had recently attained her five-and-twentieth blessed birthday, of whom a prophetic private in the Life Guards had heralded the sublime appearance by announcing that arrangements were made for the swallowing up of London and Westminster.',
    ],
    notes: { 1: 'George III and Charlotte in England; Louis XVI and Marie-Antoinette in France.' },
  },
].map((page) =>
  page.language === 'fra'
    ? { ...page, paragraphs: page.paragraphs.map(frenchSpacing), notes: Object.fromEntries(Object.entries(page.notes).map(([n, t]) => [n, frenchSpacing(t)])) }
    : page,
);
