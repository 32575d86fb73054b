"""The last link of a chain question, without a chat model.

"What currency predated the Euro in the country Signmark is from?" asks about something the question only
describes — "the country Signmark is from". The sentence quoted about Signmark names it ("… competing in
Finland's national qualifications …") and says nothing of a currency; the answer is a sentence about Finland
("The Finnish markka … was the currency of Finland … replaced by the euro"). For a question that describes
what it asks about this way (``describes_link``):

- retrieval searches for the link when the subject's passage holds little of what is asked: what is asked,
  without the description, with each name that passage gives (``link_searches``);
- the answer's lines about the description's subject come first (``subject_lines``), and when none of them
  holds most of what is asked, the sentence of the evidence pool that names an entity of theirs — in its text
  or its document's title — and holds more of what is asked is quoted after them (``last_link``); the lines of
  other documents, quoted for holding the asked words, are then dropped as look-alikes;
- nothing it asks is "absent" from the subject's documents, and its kind noun ("city", ``link_kinds``) is no
  word the documents must write.

The link is an inference the documents do not state in one place: an answer that needs it is never
``high`` (``State.inferred``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from dropqa.answering.extractive import Similarity, sentence_units
from dropqa.answering.hops import bridge_candidates, english_entities, needs_second_hop
from dropqa.retrieval.hits import Hit
from dropqa.text.asked import VALUE_KINDS, expected_kind, held_share, holds_kind
from dropqa.text.entities import chinese_names
from dropqa.text.segment import has_han, query_terms
from dropqa.text.subjects import TIMES

# What a question describes instead of naming: "the country Signmark is from", "the state where X is located",
# "the director of Y", "Z's birthplace", "X所在的城市", "Y的导演的…".
_PLACES = r"country|state|city|county|town|village|district|region|province|continent|nation|island|river"
_LINK_NOUNS = (
    _PLACES + r"|place|university|college|school|team|club|company|band|group|network|league|party|"
    r"organi[sz]ation|label|station|person|man|woman|director|producer|performer|author|writer|composer|singer|"
    r"actor|actress|artist|creator|founder|owner|player|spouse|wife|husband|father|mother|son|daughter|child|"
    r"birthplace|capital|headquarters|hometown|alma mater|employer|publisher|developer|manufacturer|distributor|"
    r"operator|character|studio|venue|location|country of citizenship|birth country|place of birth|association"
)
# What a report describes by what befell it ("the subsidiary fined by …"): only with a participle and its agent —
# "the brand of the car" is what is asked, not a link
_BEFALLEN = r"subsidiary|affiliate|supplier|customer|client|contractor|project|product|plant|factory|division"
_DESCRIBED = re.compile(
    rf"(?i)\bthe\s+(?:\w+\s+)?(?:{_LINK_NOUNS})\s+(?:where|that|which|who|whom|whose|in which|of which|from|"
    rf"containing|featuring|producing|with)\b"
    # "the director of Y" — but "the city of Washburn" is Washburn itself
    rf"|\bthe\s+(?:\w+\s+)?(?!(?:{_PLACES})\b)(?:{_LINK_NOUNS})\s+of\b"
    rf"|\bthe\s+(?:{_LINK_NOUNS})\s+(?=(?-i:[A-Z]))"  # "the country Signmark is from" (the name follows at once)
    rf"|['’]s\s+(?:\w+\s+)?(?:{_LINK_NOUNS})\b"
    # "the subsidiary fined by the Environmental Protection Bureau": a past participle and its agent
    rf"|\bthe\s+(?:\w+\s+)?(?:{_LINK_NOUNS}|{_BEFALLEN})\s+(?=\w+ed\s+by\b)"
    # "卡塞尔所在的国家的首都", "某片的导演的妻子": what is described is asked about further (a 的 follows)
    r"|(?:所在(?:的)?(?:国家|城市|省份?|地区|州|县|市)|出生(?:地|的城市|的国家)|的(?:导演|作者|配偶|妻子|丈夫|父亲|母亲|"
    r"创始人|出生地|国籍|所在地))的"
    # "被桐川市生态环境局罚款的那家子公司，是以多少价款收购的": "the one … that", a description by what befell it
    r"|的那(?:家|个|位|项|座|款|名|只|部|笔)[\u4e00-\u9fff]{0,4}?(?=[，,是在于由的])"
)
# A description by an event the documents tell ("the subsidiary fined by …", "被…罚款的那家子公司"): the thing it
# describes is named where the event is, and what is asked of it may be told in the same document — unlike
# "X's alma mater", whose answer is the other thing's own page
_EVENT = re.compile(rf"(?i)\bthe\s+(?:\w+\s+)?(?:{_LINK_NOUNS}|{_BEFALLEN})\s+\w+ed\s+by\b|"
                    r"的那(?:家|个|位|项|座|款|名|只|部|笔)")
# the kind nouns alone: what a description links to, which no document needs to write
_LINK_NOUN = re.compile(rf"(?i)\b(?:{_LINK_NOUNS}|{_BEFALLEN})\b|"
                        r"(?:国家|城市|省份?|地区|导演|作者|配偶|妻子|丈夫|父亲|母亲|创始人|出生地|国籍|所在地|子公司|供应商|客户)")


# "Who is the wife of Kim Jong-chul?": a description the question opens with is what it asks, not a link
# ("When was the country that produced Fist Power taken …?" asks something of the country: a link)
_ASKS = re.compile(r"(?i)^\s*(?:who|what|which)\s+(?:is|was|are|were)\s+$")


def _asked_itself(question: str, m: re.Match[str]) -> bool:
    """The description is what the question asks ("Who is the wife of X?", "What is X's birthplace?") — not
    when the question goes on after it to ask something of what it describes ("What is the country where Baure
    is located | named after?")."""
    before = question[:m.start()]
    if m.group(0).startswith(("'", "’")):  # the possessor's name opens the description
        names = english_entities(before)
        if names and before.rstrip().endswith(names[-1]):
            before = before[:before.rstrip().rfind(names[-1])]
        return _ASKS.match(before) is not None
    if _ASKS.match(before) is None or has_han(m.group(0)):
        return False
    # after "What is", the description is the subject of what follows (``_is_subject``): its clause ends there
    return not question[m.end():][len(_clause_of(question, m)):].strip(" ?？.!")


# the name after "the country" and what follows it: "Signmark is from" (a clause: a link), "Isolde Halloway die" (the
# question's own verb: the name is only apposed)
_NAME_THEN = re.compile(r"(?:[A-Z][\w'’.-]*\s+)*[A-Z][\w'’.-]*\s*(?P<rest>[^?？]*)")
_CLAUSE_VERB = re.compile(r"(?i)(?:is|was|are|were|has|had|have)\b")


def _apposed(question: str, m: re.Match[str]) -> bool:
    """"Where did the composer Isolde Halloway die?": "the composer" only says who Isolde Halloway is — the name
    follows at once and no clause of its own ("… is from") does: no link to follow."""
    if not m.group(0).rstrip().lower().startswith("the") or not m.group(0).endswith(" "):
        return False
    after = _NAME_THEN.match(question, m.end())
    # one bare verb, and the question ends: the question's own verb ("… die?"), not a clause ("… plays for belong to")
    return after is not None and re.fullmatch(r"[A-Za-z]+", after.group("rest").strip(" .!")) is not None \
        and not _CLAUSE_VERB.fullmatch(after.group("rest").strip(" .!"))


def _description(question: str) -> re.Match[str] | None:
    """The description the question hangs on a name: of nested ones ("the country where the city where Steven
    Blankaart was born is located"), the innermost, whose name the documents give first."""
    found = [m for m in _DESCRIBED.finditer(question) if not _asked_itself(question, m) and not _apposed(question, m)]
    if not found:
        return None
    m = found[0]
    for inner in found[1:]:
        between = question[m.end():inner.start()]
        if has_han(m.group(0)) or inner.start() < m.end() or any(w[0].isupper() for w in between.split()):
            break
        m = inner
    return m


def describes_link(question: str) -> bool:
    """The question asks about something it describes by its link to a named thing (see module docstring)."""
    return _description(question) is not None


def link_kinds(question: str) -> set[str]:
    """The words naming the kind of thing a describing question links to ("country", "city", "alma", "mater",
    "城市"): what the link is, not what is asked of it — no document needs to write "city" to name Prague.
    Empty when the question describes nothing."""
    if not describes_link(question):
        return set()
    return {w.lower() for m in _LINK_NOUN.finditer(question) for w in m.group(0).split()}


def asked_of_link(question: str, weights: dict[str, float]) -> dict[str, float]:
    """``weights`` of what a describing question asks of the thing it describes, without the description's own
    words: "Who was the first president of the association which published Journal of Psychotherapy
    Integration?" — the journal's page, "published by the American Psychological Association", holds the
    association and its publishing, not its first president, which is a hop away. ``weights`` itself when the
    question describes nothing (or nothing else is asked)."""
    hang = described_part(question)
    if not hang:
        return weights
    words = set(query_terms(hang))
    kinds = link_kinds(question)
    return {t: w for t, w in weights.items() if t not in words and t not in kinds} or weights


def link_searches(question: str, hits: Sequence[Hit], weights: dict[str, float], covered_enough: float,
                  limit: int) -> list[str]:
    """Searches for the last link when the passage about the description's subject (the first of ``hits``
    whose document its words name; else the first) holds less than ``covered_enough`` of what is asked: what
    is asked, without the description, with each name that passage gives ("What currency predated the Euro in
    the country Finland"). [] when the question describes nothing."""
    hang = described_part(question)
    if not hits or not hang:
        return []
    words = [t for t in query_terms(hang) if t in weights]
    subject = next((h for h in hits if any(t in h.names() for t in words)), hits[0])
    if not needs_second_hop(subject, asked_of_link(question, weights), covered_enough):
        return []
    return [link_question(question, name) for name in bridge_candidates(question, subject, limit)]


@dataclass(frozen=True)
class Link:
    hit_index: int  # the pool passage quoted
    text: str  # the sentence quoted
    entity: str  # the entity of the quoted lines it follows
    chain: frozenset[str] = frozenset()  # the documents of the chain: the subject's and the link's


def _entities(text: str) -> list[str]:
    """Names in ``text``; an English name joined by "of" also by its tail ("Chancellor of University of Kansas"
    names the University of Kansas too). Not a month or weekday ("January" of "January 23, 2009"): a time,
    which a line about anything may write."""
    if has_han(text):
        return chinese_names(text)
    out: list[str] = []
    for name in english_entities(text):
        if name.lower() in TIMES:
            continue
        parts = name.split(" of ")
        out += [" of ".join(parts[k:]) for k in range(len(parts))]
    return out


def described_part(question: str) -> str:
    """The words of the description — what it hangs on: "Signmark is from" of "the country Signmark is from",
    "The Girl Who …" of "the director of The Girl Who …", "Akinoshu Kenji" of "Akinoshu Kenji's birthplace",
    "卡塞尔" of "卡塞尔所在的国家" ("" when the question describes nothing). What is asked is the rest."""
    m = _description(question)
    if m is None:
        return ""
    before = question[:m.start()]
    if has_han(m.group(0)):  # "…的卡塞尔所在的国家": the words since the last 的 or comma
        return re.split(r"[的，,、；;：:\s]", before)[-1]
    if m.group(0).startswith(("'", "’")):  # the possessor: the name just before "'s"
        names = english_entities(before)
        return names[-1] if names and before.rstrip().endswith(names[-1]) else " ".join(before.split()[-2:])
    return _clause_of(question, m)


# "When did | the state where …", "What time does | the state where …": the description is what the question's
# own verb is said of, so that verb ends the description's clause ("… is located | become part of …")
_AUX_BEFORE = re.compile(r"(?i)\b(?:do|does|did|will|would|can|could)\s+$")
# "the country where | the city where X was born | is located": a description inside another's clause
_RELATIVE_BEFORE = re.compile(r"(?i)\b(?:where|that|which|who|whose)\s+$")


def _is_subject(question: str, m: re.Match[str]) -> bool:
    """The description is the subject of the question's verb: an auxiliary comes just before it ("What is | the
    country where Baure is located | named after?"), or a relative pronoun (a description inside another's
    clause), or the question opens with it ("The state where Henry Worrall died has how many …")."""
    before = question[:m.start()]
    return (not before.strip() or _AUX_BEFORE.search(before) is not None
            or _RELATIVE_BEFORE.search(before) is not None or _ASKS.match(before) is not None)


def link_question(question: str, name: str) -> str:
    """``question`` about ``name`` itself: the description replaced by the name it describes — "What time does
    Indiana stop selling booze?" of "What time does the state where Greenfield-Central High is stop selling
    booze?", "What kind of plane dropped the bomb on Hiroshima?" of "… on Akinoshu Kenji's birthplace?",
    "布拉格的首都…" of "卡塞尔所在的国家的首都…"."""
    m = _description(question)
    if m is None:
        return question
    if has_han(m.group(0)) or m.group(0).startswith(("'", "’")):  # the name it hangs on comes first
        hang = described_part(question)
        start = question.rfind(hang, 0, m.start()) if hang else -1
        if start < 0:
            return " ".join(f"{question.replace(hang, ' ')} {name}".split())
        end = m.end() - 1 if m.group(0).endswith("的") else m.end()  # "卡塞尔所在的国家|的首都"
        return " ".join(f"{question[:start]}{name}{question[end:]}".split())
    tail = question[m.end():]
    clause = _clause_of(question, m)
    return " ".join(f"{question[:m.start()]}{name} {tail[len(clause):]}".split())


# The words a relative clause may end with after the name it hangs on ("Signmark is from", "where X was born is
# located"), and the small words inside a title ("The Girl Who Played with Fire"): a lower-case word outside them
# opens what the question asks of the described thing ("that produced Fist Power | taken by the British").
_CLAUSE_TAIL = frozenset((
    "is", "was", "are", "were", "be", "been", "being", "has", "had", "have", "located", "situated", "based",
    "born", "from", "in", "at", "on", "of", "to", "by", "the", "a", "an", "and", "with", "for", "found", "set",
    "headquartered", "buried", "formed", "founded", "originally", "currently", "now", "also", "still"))


_RELATIVE = frozenset(("where", "which", "who", "whom", "whose", "that"))
_VERB_LINKS = frozenset(("containing", "featuring", "producing", "with", "from"))  # "the country containing X"


# what a clause's own verb may be made of, before the question's verb: "is located", "was born", "died"
_MAIN_VERBS = frozenset(("is", "was", "are", "were", "has", "had", "have", "does", "did"))
_CLAUSE_VERBS = frozenset((
    "is", "was", "are", "were", "be", "been", "being", "has", "had", "have", "located", "situated", "based", "born",
    "found", "set", "headquartered", "buried", "formed", "founded"))


# small words inside a title ("The Girl Who Kicked the Hornets' Nest", "Alexander and the Terrible, …")
_TITLE_SMALL = frozenset(("the", "a", "an", "of", "and", "in", "on", "at", "to", "for", "with", "from", "by", "or",
                          "de", "la", "von", "van"))


def _name_only(tail: str) -> str:
    """The name "the director of" hangs on, in ``tail``: up to the first lower-case word no title holds
    ("the performer of Privilege | is a citizen", "the author of Brand | a citizen of")."""
    named = False
    end = 0  # where the last word of the name (not a small word) ends
    for w in re.finditer(r"\S+", tail):
        word = w.group(0).strip("\"'“”‘’()[],.;:?!")
        if not word:
            continue
        if word[0].isupper() or word[0].isdigit():
            named = True
        elif named and word.lower() not in _TITLE_SMALL:
            return tail[:end] if end else tail[: w.start()].rstrip()
        if word.lower() not in _TITLE_SMALL:
            end = w.end()
    return tail


def _clause_of(question: str, m: re.Match[str]) -> str:
    """The clause of the description ``m`` (see ``_clause``; a name alone after "of")."""
    tail, last = question[m.end():], m.group(0).split()[-1].lower()
    if last == "of":
        return _name_only(tail)
    return _clause(tail, verb_first=last in _VERB_LINKS, subject=_is_subject(question, m))


def _clause(tail: str, *, verb_first: bool = False, subject: bool = False) -> str:
    """A relative clause's words in ``tail`` (what follows "the country that"). When its verb comes before the
    name it gives ("that produced Fist Power", "containing Nugegoda"), the clause ends with that name and the
    words that close it: what follows is asked of the described thing ("… taken by the British"). When the name
    comes first, its verb follows it ("where WILM is licensed to broadcast") and the clause is the whole tail —
    unless the description is the ``subject`` of the question's verb: then the clause ends after its own verb,
    where the question's begins ("where Pocahontas Mounds is located | become part of …", "where Henry Worrall
    died | has how many …")."""
    named = False
    verb = False  # the clause's own verb, once its name is given
    for w in re.finditer(r"\S+", tail):
        word = w.group(0).strip("\"'“”‘’()[],.;:?!")
        if not word:
            continue
        low = word.lower()
        if word[0].isupper() or word[0].isdigit():
            named = True
        elif not named:
            verb_first |= low not in _CLAUSE_TAIL and low not in _RELATIVE and not _LINK_NOUN.fullmatch(low)
        elif verb_first and (low not in _CLAUSE_TAIL or low in _MAIN_VERBS):  # "fined by X | was acquired …"
            return tail[: w.start()].rstrip()
        elif subject and not verb_first:
            if verb and (low in _MAIN_VERBS or low not in _CLAUSE_TAIL):
                return tail[: w.start()].rstrip()
            verb |= low in _CLAUSE_VERBS or low not in _CLAUSE_TAIL
    return tail


def subject_lines(question: str, weights: dict[str, float], pool: Sequence[Hit],
                  quoted: Sequence[tuple[int, str]]) -> list[int]:
    """Which of the quoted lines (indexes into ``quoted``) are about what the description hangs on: their
    document is named by the description's words ("Signmark" of "the country Signmark is from")."""
    return _lines_naming(_described_terms(question, weights), pool, quoted)


def _described_terms(question: str, weights: dict[str, float]) -> list[str]:
    return [t for t in query_terms(described_part(question)) if t in weights]


def _lines_naming(terms: Sequence[str], pool: Sequence[Hit], quoted: Sequence[tuple[int, str]]) -> list[int]:
    return [k for k, (i, _) in enumerate(quoted) if any(t in pool[i].names() for t in terms)]


def last_link(question: str, weights: dict[str, float], pool: Sequence[Hit], quoted: Sequence[tuple[int, str]],
              *, enough: float, passages: int, similarity: Similarity | None = None, about_weight: float = 0.1,
              similarity_weight: float = 0.1, within: Collection[str] = ()) -> Link | None:
    """The sentence that answers what ``question`` asks of the entity its quoted lines name, or None.

    ``quoted``: (pool index, sentence) of the answer's lines. The lines about what the description hangs on
    (their document is named by its words; else the first line) give the entities. None when one of those
    lines holds ``enough`` of what is asked, or when no sentence of the best ``passages`` that names one of
    the entities (in its text or its document's title; not a word of the question) holds more of what is
    asked than they do, or when the best such sentence is quoted already. Between sentences holding as much,
    one about the entity (``about_weight``: its document's title names it, or it names few things) and one
    nearer the question in meaning (``similarity_weight``) go first. ``within``: documents the question names,
    inside which the chain may run when the description is an event they tell ("According to the annual report of
    X, the subsidiary fined by … was acquired for what price?": the fine's paragraph names Greyfield Orchards, the
    acquisition's gives its price) — a sentence of theirs links when it writes a name of the subject lines
    themselves."""
    if not quoted or not describes_link(question):
        return None
    asked = question.lower()
    hang = _described_terms(question, weights)
    subject = [quoted[k] for k in _lines_naming(hang, pool, quoted)] or [quoted[0]]
    subject_docs = {pool[i].document_id for i, _ in subject}
    # what is asked: the question's terms but the description's ("licensed to broadcast" of "the city where WILM
    # is licensed to broadcast"), those naming the subject's documents, and the kind of thing the description
    # names ("country": the link's own word, which any sentence about any country holds)
    naming = " ".join(pool[i].names() for i, _ in subject)
    kinds = link_kinds(question)
    ask = {t: w for t, w in weights.items() if t not in hang and t not in naming and t not in kinds} or dict(weights)
    floor = max(held_share(text, ask) for _, text in subject)
    if not _EVENT.search(question):
        within = ()
    # inside a named document, a quoted line of it that holds enough of what is asked has found the link already
    # ("… the project funded by the convertible bonds …": "The project … is expected to start production in June
    # 2023" is quoted beside the bond's line)
    if floor >= enough or any(held_share(text, ask) >= enough for i, text in quoted if pool[i].document_id in within):
        return None
    entities: list[str] = []
    for _, text in subject:
        for name in _entities(text):
            low = name.lower()
            if low not in asked and low not in entities and len(low) >= 2:
                entities.append(low)
    own = list(entities)  # the names the subject lines write: what a link inside their document must name
    for hit in pool[:passages]:  # the subject's documents' other passages name the link too
        if hit.document_id in subject_docs:
            for name in _entities(hit.content):
                low = name.lower()
                if low not in asked and low not in entities and len(low) >= 2:
                    entities.append(low)
    if not entities:
        return None
    candidates: list[tuple[float, int, str, str]] = []
    said = {text for _, text in quoted}
    for i, hit in enumerate(pool[:passages]):
        inside = hit.document_id in subject_docs
        if inside and hit.document_id not in within:
            continue
        title = f"{hit.document_name} {hit.breadcrumb}".lower()
        for unit in sentence_units(hit):
            low = unit.lower()
            if inside:  # the chain inside a named document: a line naming what the subject lines name
                linked = next((e for e in own if e in low), None) if unit not in said else None
            else:
                linked = next((e for e in entities if e in low or e in title), None)
            if linked is None:
                continue
            if linked not in low and any(n.lower() in title for n in _entities(unit) if n.lower() != linked):
                continue  # the title's other subject ("… Hiroshima and Nagasaki": a line about Nagasaki)
            held = held_share(f"{unit} {hit.breadcrumb}", ask)
            if held <= floor:
                continue
            # about the entity — its own document, or a sentence naming few things — before a passing mention in
            # a list of names
            about = 1.0 if linked in title else 1.0 / max(1, len(_entities(unit)))
            candidates.append((held + about_weight * about, i, unit, linked))
    if not candidates:
        return None
    kind = expected_kind(question)
    if kind in VALUE_KINDS:  # "acquired for what price": a line giving an amount, when one does, before the others
        candidates = [c for c in candidates if holds_kind(c[2], kind, question)] or candidates
    if similarity is not None and len(candidates) > 1:
        sims = similarity([c[2] for c in candidates])
        candidates = [(score + similarity_weight * sim, i, unit, e)
                      for (score, i, unit, e), sim in zip(candidates, sims, strict=True)]
    _, i, unit, entity = max(candidates, key=lambda c: (c[0], -c[1]))
    if (i, unit) in set(quoted):
        return None
    return Link(hit_index=i, text=unit, entity=entity, chain=frozenset({*subject_docs, pool[i].document_id}))
