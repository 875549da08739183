// The text printed in the example scan bundle (examples/sample.aglbundle), read by scripts/make-sample.mjs.
// Both works are in the public domain: Jane Austen, Pride and Prejudice (1813), chapters I–II, and
// Voltaire, Candide, ou l'Optimisme (1759), chapter I. The footnotes are our own.
//
// Markup, kept small on purpose: `[n]` in a paragraph is a call to footnote n (printed as a superscript
// digit). French paragraphs get their non-breaking spaces (before ; : ! ? » and after «) from
// `frenchSpacing`, so the source stays readable.

/** The project name written into the bundle's manifest. */
export const PROJECT_TITLE = 'Pride and Prejudice · Candide — Quire sample';

/** Non-breaking spaces where French typography wants them (they never become line breaks). */
export function frenchSpacing(text) {
  return text.replace(/ ([;:!?»])/g, '\u00a0$1').replace(/« /g, '«\u00a0');
}

const austenChapterOne = [
  'It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.',
  'However little known the feelings or views of such a man may be on his first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding families, that he is considered the rightful property of some one or other of their daughters.',
  '“My dear Mr. Bennet,” said his lady to him one day, “have you heard that Netherfield Park is let at last?”',
  'Mr. Bennet replied that he had not.',
  '“But it is,” returned she; “for Mrs. Long has just been here, and she told me all about it.”',
  'Mr. Bennet made no answer.',
  '“Do you not want to know who has taken it?” cried his wife impatiently.',
  '“You want to tell me, and I have no objection to hearing it.”',
  'This was invitation enough.',
  '“Why, my dear, you must know, Mrs. Long says that Netherfield is taken by a young man of large fortune from the north of England; that he came down on Monday in a chaise and four[1] to see the place, and was so much delighted with it, that he agreed with Mr. Morris immediately; that he is to take possession before Michaelmas,[2] and some of his servants are to be in the house by the end of next week.”',
  '“What is his name?”',
  '“Bingley.”',
  '“Is he married or single?”',
  '“Oh! Single, my dear, to be sure! A single man of large fortune; four or five thousand a year. What a fine thing for our girls!”',
  '“How so? How can it affect them?”',
  '“My dear Mr. Bennet,” replied his wife, “how can you be so tiresome! You must know that I am thinking of his marrying one of them.”',
  '“Is that his design in settling here?”',
  '“Design! Nonsense, how can you talk so! But it is very likely that he may fall in love with one of them, and therefore you must visit him as soon as he comes.”',
  '“I see no occasion for that. You and the girls may go, or you may send them by themselves, which perhaps will be still better, for as you are as handsome as any of them, Mr. Bingley may like you the best of the party.”',
  '“My dear, you flatter me. I certainly have had my share of beauty, but I do not pretend to be anything extraordinary now. When a woman has five grown-up daughters, she ought to give over thinking of her own beauty.”',
  '“In such cases, a woman has not often much beauty to think of.”',
  '“But, my dear, you must indeed go and see Mr. Bingley when he comes into the neighbourhood.”',
  '“It is more than I engage for, I assure you.”',
  '“But consider your daughters. Only think what an establishment it would be for one of them. Sir William and Lady Lucas are determined to go, merely on that account, for in general, you know, they visit no newcomers. Indeed you must go, for it will be impossible for us to visit him if you do not.”',
  '“You are over-scrupulous, surely. I dare say Mr. Bingley will be very glad to see you; and I will send a few lines by you to assure him of my hearty consent to his marrying whichever he chooses of the girls; though I must throw in a good word for my little Lizzy.”',
  '“I desire you will do no such thing. Lizzy is not a bit better than the others; and I am sure she is not half so handsome as Jane, nor half so good-humoured as Lydia. But you are always giving her the preference.”',
  '“They have none of them much to recommend them,” replied he; “they are all silly and ignorant like other girls; but Lizzy has something more of quickness than her sisters.”',
  '“Mr. Bennet, how can you abuse your own children in such a way? You take delight in vexing me. You have no compassion for my poor nerves.”',
  '“You mistake me, my dear. I have a high respect for your nerves. They are my old friends. I have heard you mention them with consideration these last twenty years at least.”',
  '“Ah, you do not know what I suffer.”',
  '“But I hope you will get over it, and live to see many young men of four thousand a year come into the neighbourhood.”',
  '“It will be no use to us, if twenty such should come, since you will not visit them.”',
  '“Depend upon it, my dear, that when there are twenty, I will visit them all.”',
  'Mr. Bennet was so odd a mixture of quick parts, sarcastic humour, reserve, and caprice, that the experience of three-and-twenty years had been insufficient to make his wife understand his character. Her mind was less difficult to develop. She was a woman of mean understanding, little information, and uncertain temper. When she was discontented, she fancied herself nervous. The business of her life was to get her daughters married; its solace was visiting and news.',
];

const austenChapterTwo = [
  'Mr. Bennet was among the earliest of those who waited on Mr. Bingley. He had always intended to visit him, though to the last always assuring his wife that he should not go; and till the evening after the visit was paid she had no knowledge of it. It was then disclosed in the following manner. Observing his second daughter employed in trimming a hat, he suddenly addressed her with:',
  '“I hope Mr. Bingley will like it, Lizzy.”',
  '“We are not in a way to know what Mr. Bingley likes,” said her mother resentfully, “since we are not to visit.”',
  '“But you forget, mamma,” said Elizabeth, “that we shall meet him at the assemblies, and that Mrs. Long promised to introduce him.”',
  '“I do not believe Mrs. Long will do any such thing. She has two nieces of her own. She is a selfish, hypocritical woman, and I have no opinion of her.”',
  '“No more have I,” said Mr. Bennet; “and I am glad to find that you do not depend on her serving you.”',
  'Mrs. Bennet deigned not to make any reply, but, unable to contain herself, began scolding one of her daughters.',
  '“Don’t keep coughing so, Kitty, for Heaven’s sake! Have a little compassion on my nerves. You tear them to pieces.”',
  '“Kitty has no discretion in her coughs,” said her father; “she times them ill.”',
  '“I do not cough for my own amusement,” replied Kitty fretfully. “When is your next ball to be, Lizzy?”',
  '“To-morrow fortnight.”',
  '“Aye, so it is,” cried her mother, “and Mrs. Long does not come back till the day before; so it will be impossible for her to introduce him, for she will not know him herself.”',
  '“Then, my dear, you may have the advantage of your friend, and introduce Mr. Bingley to her.”',
  '“Impossible, Mr. Bennet, impossible, when I am not acquainted with him myself; how can you be so teasing?”',
  '“I honour your circumspection. A fortnight’s acquaintance is certainly very little. One cannot know what a man really is by the end of a fortnight. But if we do not venture somebody else will; and after all, Mrs. Long and her nieces must stand their chance; and, therefore, as she will think it an act of kindness, if you decline the office, I will take it on myself.”',
  'The girls stared at their father. Mrs. Bennet said only, “Nonsense, nonsense!”',
  '“What can be the meaning of that emphatic exclamation?” cried he. “Do you consider the forms of introduction, and the stress that is laid on them, as nonsense? I cannot quite agree with you there. What say you, Mary? For you are a young lady of deep reflection, I know, and read great books and make extracts.”',
  'Mary wished to say something sensible, but knew not how.',
  '“While Mary is adjusting her ideas,” he continued, “let us return to Mr. Bingley.”',
  '“I am sick of Mr. Bingley,” cried his wife.',
  '“I am sorry to hear that; but why did not you tell me that before? If I had known as much this morning I certainly would not have called on him. It is very unlucky; but as I have actually paid the visit, we cannot escape the acquaintance now.”',
  'The astonishment of the ladies was just what he wished; that of Mrs. Bennet perhaps surpassing the rest; though, when the first tumult of joy was over, she began to declare that it was what she had expected all the while.',
  '“How good it was in you, my dear Mr. Bennet! But I knew I should persuade you at last. I was sure you loved your girls too well to neglect such an acquaintance. Well, how pleased I am! and it is such a good joke, too, that you should have gone this morning and never said a word about it till now.”',
  '“Now, Kitty, you may cough as much as you choose,” said Mr. Bennet; and, as he spoke, he left the room, fatigued with the raptures of his wife.',
  '“What an excellent father you have, girls!” said she, when the door was shut. “I do not know how you will ever make him amends for his kindness; or me, either, for that matter. At our time of life it is not so pleasant, I can tell you, to be making new acquaintances every day; but for your sakes, we would do anything. Lydia, my love, though you are the youngest, I dare say Mr. Bingley will dance with you at the next ball.”',
  '“Oh!” said Lydia stoutly, “I am not afraid; for though I am the youngest, I’m the tallest.”',
  'The rest of the evening was spent in conjecturing how soon he would return Mr. Bennet’s visit, and determining when they should ask him to dinner.',
];

const candideChapterOne = [
  'Il y avait en Westphalie, dans le château de monsieur le baron de Thunder-ten-tronckh, un jeune garçon à qui la nature avait donné les mœurs les plus douces. Sa physionomie annonçait son âme. Il avait le jugement assez droit, avec l’esprit le plus simple ; c’est, je crois, pour cette raison qu’on le nommait Candide. Les anciens domestiques de la maison soupçonnaient qu’il était fils de la sœur de monsieur le baron et d’un bon et honnête gentilhomme du voisinage, que cette demoiselle ne voulut jamais épouser parce qu’il n’avait pu prouver que soixante et onze quartiers, et que le reste de son arbre généalogique avait été perdu par l’injure du temps.',
  'Monsieur le baron était un des plus puissants seigneurs de la Westphalie, car son château avait une porte et des fenêtres. Sa grande salle même était ornée d’une tapisserie. Tous les chiens de ses basses-cours composaient une meute dans le besoin ; ses palefreniers étaient ses piqueurs ; le vicaire du village était son grand aumônier. Ils l’appelaient tous monseigneur, et ils riaient quand il faisait des contes.',
  'Madame la baronne, qui pesait environ trois cent cinquante livres, s’attirait par là une très grande considération, et faisait les honneurs de la maison avec une dignité qui la rendait encore plus respectable. Sa fille Cunégonde, âgée de dix-sept ans, était haute en couleur, fraîche, grasse, appétissante. Le fils du baron paraissait en tout digne de son père. Le précepteur Pangloss[1] était l’oracle de la maison, et le petit Candide écoutait ses leçons avec toute la bonne foi de son âge et de son caractère.',
  'Pangloss enseignait la métaphysico-théologo-cosmolonigologie.[2] Il prouvait admirablement qu’il n’y a point d’effet sans cause, et que, dans ce meilleur des mondes possibles, le château de monseigneur le baron était le plus beau des châteaux, et madame la meilleure des baronnes possibles.',
  '« Il est démontré, disait-il, que les choses ne peuvent être autrement : car, tout étant fait pour une fin, tout est nécessairement pour la meilleure fin. Remarquez bien que les nez ont été faits pour porter des lunettes, aussi avons-nous des lunettes. Les jambes sont visiblement instituées pour être chaussées, et nous avons des chausses. Les pierres ont été formées pour être taillées, et pour en faire des châteaux, aussi monseigneur a un très beau château ; le plus grand baron de la province doit être le mieux logé ; et, les cochons étant faits pour être mangés, nous mangeons du porc toute l’année : par conséquent, ceux qui ont avancé que tout est bien ont dit une sottise ; il fallait dire que tout est au mieux. »',
  'Candide écoutait attentivement, et croyait innocemment ; car il trouvait mademoiselle Cunégonde extrêmement belle, quoiqu’il ne prît jamais la hardiesse de le lui dire. Il concluait qu’après le bonheur d’être né baron de Thunder-ten-tronckh, le second degré de bonheur était d’être mademoiselle Cunégonde ; le troisième, de la voir tous les jours ; et le quatrième, d’entendre maître Pangloss, le plus grand philosophe de la province, et par conséquent de toute la terre.',
  'Un jour, Cunégonde, en se promenant auprès du château, dans le petit bois qu’on appelait parc, vit entre des broussailles le docteur Pangloss qui donnait une leçon de physique expérimentale à la femme de chambre de sa mère, petite brune très jolie et très docile. Comme mademoiselle Cunégonde avait beaucoup de dispositions pour les sciences, elle observa, sans souffler, les expériences réitérées dont elle fut témoin ; elle vit clairement la raison suffisante du docteur, les effets et les causes, et s’en retourna tout agitée, toute pensive, toute remplie du désir d’être savante, songeant qu’elle pourrait bien être la raison suffisante du jeune Candide, qui pouvait aussi être la sienne.',
  'Elle rencontra Candide en revenant au château, et rougit ; Candide rougit aussi. Elle lui dit bonjour d’une voix entrecoupée ; et Candide lui parla sans savoir ce qu’il disait. Le lendemain, après le dîner, comme on sortait de table, Cunégonde et Candide se trouvèrent derrière un paravent ; Cunégonde laissa tomber son mouchoir, Candide le ramassa ; elle lui prit innocemment la main ; le jeune homme baisa innocemment la main de la jeune demoiselle avec une vivacité, une sensibilité, une grâce toute particulière ; leurs bouches se rencontrèrent, leurs yeux s’enflammèrent, leurs genoux tremblèrent, leurs mains s’égarèrent. Monsieur le baron de Thunder-ten-tronckh passa auprès du paravent, et, voyant cette cause et cet effet, chassa Candide du château à grands coups de pied dans le derrière ; Cunégonde s’évanouit ; elle fut souffletée par madame la baronne dès qu’elle fut revenue à elle-même ; et tout fut consterné dans le plus beau et le plus agréable de tous les châteaux possibles.',
].map(frenchSpacing);

/**
 * The books, in the order their spreads appear in the bundle. `firstPage` is the folio of the first
 * page printed (even: a left page), `pageCount` how many pages are typeset; text that does not fit
 * simply runs on past the last page shown, as in a real book.
 */
export const BOOKS = [
  {
    title: 'Pride and Prejudice',
    lang: 'en',
    firstPage: 2,
    pageCount: 4,
    chapters: [
      { heading: ['CHAPTER I.'], runningHead: 'Chapter I', paragraphs: austenChapterOne },
      { heading: ['CHAPTER II.'], runningHead: 'Chapter II', paragraphs: austenChapterTwo },
    ],
    notes: {
      1: 'A light closed carriage drawn by four horses, the mark of a man of means.',
      2: 'Michaelmas, the feast of St Michael on 29 September, was a quarter day, when rents fell due and new tenants took possession.',
    },
  },
  {
    title: 'Candide, ou l’Optimisme',
    lang: 'fr',
    firstPage: 268,
    pageCount: 2,
    chapters: [
      {
        heading: ['CHAPITRE PREMIER', frenchSpacing('Comment Candide fut élevé dans un beau château, et comment il fut chassé d’icelui.')],
        runningHead: 'Chapitre premier',
        paragraphs: candideChapterOne,
      },
    ],
    notes: {
      1: frenchSpacing('Du grec πᾶν, « tout », et γλῶσσα, « langue » : celui qui parle de tout.'),
      2: frenchSpacing(
        'Mot forgé par Voltaire contre la philosophie de Leibniz et de Wolff. Pangloss, qui enseigne tout, a oublié le précepte de Delphes : γνῶθι σεαυτόν, « connais-toi toi-même ».',
      ),
    },
  },
];
