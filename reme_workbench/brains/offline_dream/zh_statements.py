"""What a Chinese sentence of a chat states about its speaker, read from jieba's parts of
speech (`textrules.nlp.chinese_tagged`), docs/spec.md §5.2.8: the Chinese half of the
conversation rules (conversation.py reads English with spaCy).

* A clause is *about its speaker* when 我 / 我们 is its subject (我养了一只猫; also after
  a connective, an adverb or a time: 另外我最近在学二胡, even where the dictionary tags the
  verb as something else), when a thing of the speaker's is (我的猫, 我妈, 家里的狗; a kin
  word alone: 儿子今天…), or when it has no subject and says when, what the speaker did
  (了, 过), means to do (想, 打算) or has just done or is doing (刚, 已经, 正在) — Chinese
  leaves the speaker out (上周刚换了工作, 刚下夜班, 这周六去试礼服).
* A clause with no subject of its own right after such a clause goes on about the
  speaker (我刚搬到成都，在一家医院上班; 上周换了车，一辆电车): the subject is carried
  over, as Chinese writes a chain of clauses.
* Its topics are the noun phrases of those clauses (a phrase after 的 whole, where the
  dictionary cuts an unknown noun into a name and an adjective); never the listener's
  (你的画); a question clause states nothing unless it names a thing of the speaker's.

* Facts said in passing (issue #30): a thing named by what the speaker does with it, in
  a question too (我养的仓鼠…怎么办); news of the speaker's people (她在电视台做剪辑, 阿凯求婚
  了); a decision (那就…, 送去宠物店吧) or a thing taken up (修复日志这个好); an activity named
  by a verb after a verb (迷上烘焙了). Where a word's form contradicts jieba's tag the
  form wins (`zh_parse.parse_clause`: 七月份/nz a time, 打网球/n a verb and its object, 阿/j 凯/nr a name).

Short statements count ("我养了一只猫"); thanks and greetings name no thing and state
nothing. The readings are grouped by clause, so that one sentence telling two things
(where one lives, where one works) gives a statement on each.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...textrules.nlp import chinese_simplified, chinese_tagged
from .zh_parse import (
    AUX,
    INTENT,
    KIN_CHARS,
    KIN_WORDS,
    LIGHT,
    NOUNS,
    OPENING,
    TIMES,
    a_not_a,
    a_state,
    alone,
    called_name,
    clauses,
    counts_an_act,
    done_for,
    goes_to_do,
    headless_count,
    intent_after,
    is_verb,
    kin_subject,
    latin_thing,
    moved_to,
    negated_act,
    one_who,
    parse_clause,
    placed,
    praised_act,
)

__all__ = ["ZhReading", "read_chinese", "asked_of_listener", "asks_about_listener", "refers_back"]

_ZH_SELF = ("我", "我们", "咱们", "俺", "咱")
_ZH_QUESTION = ("?", "？", "吗", "呢", "么")
# interrogative words: a clause with one asks (有什么办法, 怎么弄) though it ends on no 吗 —
# the dictionary's words only (会不会 is cut 会/v 不会/v: the A-not-A test reads it)
_ZH_ASKING = frozenset(("什么", "怎么", "怎么办", "怎样", "怎么样", "为什么", "哪", "哪里", "哪儿",
                        "哪个", "哪些", "多少", "多久", "几", "如何", "是否", "可不可以", "咋", "咋办",
                        "是不是", "有没有", "好不好", "行不行"))
# what follows 我 / 你 in one word of the dictionary's (我妈, 我家, 你家): kin, home
_ZH_KIN = frozenset(("妈", "爸", "哥", "姐", "弟", "妹", "家")) | KIN_WORDS
# one's home before 的 is the speaker's, as 我家 is: 家里的狗 (a closed class of words for home)
_ZH_HOME = frozenset(("家里", "家中", "家", "屋里"))
# aspect adverbs: an act just done, done already or going on (刚下夜班, 已经报名了, 正在学) —
# with no subject before them, the speaker's own (a closed class of grammar words)
_ZH_ASPECT = frozenset(("刚", "刚刚", "刚才", "已经", "已", "正在", "正", "在", "才", "一直"))
# adverbs of how often (每天都去, 经常加班): a habit, with no subject before them the
# speaker's own (a closed class of grammar words)
_ZH_HABIT = frozenset(("都", "常", "常常", "经常", "总", "总是", "一直", "天天", "每天",
                       "平时", "通常", "偶尔", "有时", "有时候", "每周", "每晚"))
# what follows "then" in a decision (那就…, 那还是…, 那先…): a closed class of adverbs and
# connectives — not 那可以… ("then you could": a suggestion)
_ZH_DECIDING = frozenset(("就", "还是", "先", "干脆", "索性", "只好", "只能", "直接"))
# words of approval: "X 这个好" takes X up (a closed class of evaluative predicates)
# (挺好, 很好: jieba cuts the adverb off, leaving 好)
_ZH_APPROVE = frozenset(("好", "可以", "不错", "行", "合适"))
_ZH_THIS = frozenset(("这个", "这", "那个", "这样"))
# "then" opening a decision (那就…): a closed class of connectives jieba tags as pronouns
_ZH_THEN = frozenset(("那", "那么", "那样"))
# words that continue a noun phrase after 的 where the dictionary cuts an unknown noun
# into pieces (柯/nr 基/a): names, adjectives, morphemes
_AFTER_DE = ("a", "ag", "zg", "ng", "b", "j", "nr", "nz", "eng")


# the locatives of time after an event (放学/n 后, 下班以后): the phrase before says when
_ZH_AFTER = frozenset(("后", "以后", "之后"))


@dataclass(frozen=True)
class ZhReading:
    """What a Chinese sentence says about its speaker: the topic phrases of each clause
    about the speaker that names one (`groups`, in order; the first phrase of a clause
    is what its verb takes) — none when it only joins the unit its turn is on; `context`
    when it states nothing about the speaker but names a thing or a time."""

    groups: tuple[tuple[str, ...], ...]
    context: bool = False

    @property
    def topics(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(t for g in self.groups for t in g))


def _zh_topics(tagged: list[tuple[str, str]], names: frozenset[str]) -> list[tuple[int, str]]:
    """The noun phrases of a clause, ranked: the one after a numeral and classifier first
    ("一家诊所": jieba's dictionary lists 诊所 as a verb, the classifier says it is a thing),
    then longer before a one-character "noun" (often a verb the dictionary mislabels:
    "报", "学"); never the listener's (你的画). A phrase right after 的 runs on through
    names and adjectives (家里的柯/nr 基/a: an unknown noun cut in two)."""
    found: list[tuple[int, str]] = []
    run: list[str] = []
    listener = others = counted = after_count = after_verb = after_de = False
    own = False  # the run follows 我的 before any verb: the speaker's thing, the subject
    de_verbs = False  # the words after 的 so far are verbs: 的提前/v 面试/v — one phrase
    run_flag = prev = ""
    # a kin word ends a noun run: 我妈/n 住院/n, 老婆/n 话/n — the person, then what is
    # said of them, never one name (妈住院)
    words = [*(p for k, pair in enumerate(tagged) for p in (
        [pair, ("", "x")] if (pair[0] in KIN_WORDS or (pair[0] in KIN_CHARS and k and tagged[k - 1][0] in _ZH_SELF))
        and tagged[k + 1:k + 2] and tagged[k + 1][1] in NOUNS else [pair])), ("。", "x")]
    for k, (word, flag) in enumerate(words):
        # after a count, an adjective or a verb of two characters is (part of) a thing
        # (一家诊所/v, 条红/a 围巾); a verb of one character is none (半个月没/v 人喂), nor
        # one taking a pronoun (几天拜托/v 我)
        noun = (flag in NOUNS or (counted and (flag[:1] == "a" or (
                    flag[:1] == "v" and len(word) > 1 and words[k + 1][1] != "r"
                    and word[0] not in "有没")))  # 六点多有空: having, no thing
                or latin_thing(word, flag)
                or ((after_de or after_count) and run and flag in _AFTER_DE)
                # 试试白/a 噪音/n: a one-character adjective right before a noun is part of it
                or (not run and flag == "a" and len(word) == 1 and words[k + 1][1] in ("n", "nz")
                    and words[k + 1][0] not in LIGHT and after_verb)
                or (after_de and (flag in _AFTER_DE or (flag.startswith("v") and de_verbs)))) \
            and word not in names and word not in LIGHT and prev not in ("得", "离") \
            and not (run and flag == "a" and len(word) > 1)  # 叶子发软/a: what is said of it
        if noun and not listener and not (others and word in _ZH_KIN):
            after_count = after_count or (counted and not run)
            run.append(word)
            run_flag = "n" if after_de and len(run) > 1 else flag
            counted = counted and flag[:1] == "a"  # 个小/a 超市/v: still the counted thing
            de_verbs = de_verbs and flag[:1] in "va"  # 的小/a 超市/v: one thing
            continue
        # a count of times (一趟, 两次: a verb's classifier) counts no thing
        counted = flag in ("m", "q", "mq") and not word.endswith(TIMES)
        kin = "".join(run) in KIN_WORDS  # 老婆的…: what follows is the speaker's people's
        if run:
            phrase = "".join(run)
            lone = len(phrase) == 1 and not after_count and run_flag != "n"
            # 说个好玩的, 买了个便宜的: a counted adjective (or verb) that 的 closes names no thing
            quality = run_flag[:1] in "av" and word == "的" and words[k + 1][1] == "x"
            if phrase not in names and not lone and not quality:  # what the verb takes before where or
                # when (在深圳做程序员); one character tagged other than a plain noun ("管")
                # is no topic unless a classifier says it is a thing
                rank = (0 if after_verb else 2) + (0 if after_count else 1) + (len(phrase) < 2) \
                    + 4 * (word == "的" and words[k + 1][1][:1] in "na"  # 萧邦的夜曲: 夜曲 first
                           and words[k + 1][0] not in LIGHT) \
                    + 4 * (word in _ZH_AFTER)  # 放学后: when, after the one it happened to
                # 我妈住院了: the speaker's kin as the subject leads, as 我的猫 does
                # (我姐的小诊所: the clinic, what 的 says is hers)
                mine = own or (prev in _ZH_SELF and word != "的" and (phrase in KIN_CHARS or phrase in KIN_WORDS))
                found.append((-1 if mine and not after_verb else rank, phrase))
            run, after_count = [], False
        after_verb = after_verb or flag.startswith("v") or word == "把"  # 把狗: what the verb takes
        listener = word in ("你", "您", "你们") or (listener and word == "的")
        others = word in _ZH_THIRD  # 他妈, 她老公: another's kin, no thing of the speaker's
        # 家里的龟, 我家柯基: the home's thing is the speaker's, as 我的龟 is
        own = (word == "的" and (prev in _ZH_SELF or prev in _ZH_HOME or kin)) or word in ("我家", "家里")
        after_de = word == "的"
        de_verbs = after_de
        prev = word
    return found


def _approved(tagged: list[tuple[str, str]]) -> str:
    """The thing a clause takes up: a phrase set before it and taken up again by 这个, then
    a word of approval (烘焙课这个可以, 修复日志这个好) — what the speaker adopts, often what
    the assistant proposed. The phrase as written (jieba cuts such phrases into verbs and
    nouns: 修复/v 日志/ns); "" for any other clause."""
    at = next((i for i, (w, _) in enumerate(tagged) if w in _ZH_THIS), -1)
    head = tagged[:at]
    rest = [w for w, f in tagged[at + 1:] if not f.startswith(("d", "y", "uj"))]
    if at < 1 or rest[:1] != rest[-1:] or len(rest) != 1 or rest[0] not in _ZH_APPROVE:
        return ""
    if not any(f in NOUNS for _, f in head) or any(f == "r" for _, f in head):
        return ""  # a phrase with a noun, no pronoun (你说的这个好: the listener's words)
    return "".join(w for w, _ in head)




# directional and resultative complements written as verbs (坚持下来, 拿出来)
_ZH_COMPLEMENT = frozenset(("起来", "下来", "下去", "出来", "出去", "回来", "回去", "过来", "过去",
                            "上去", "进来", "进去"))


def _activity(tagged: list[tuple[str, str]]) -> str:
    """An activity named by a verb as the object of another, at the clause's end (迷/v 上
    烘焙/v 了, 开始/v 健身/v 了, 提前/v 面试/v 过了): what the speaker took up or did; ""
    when the first verb is auxiliary (想出去) or the second a complement (坚持下来)."""
    words = [(w, f) for w, f in tagged if f not in ("x", "ul", "ug", "uz", "y", "w")]
    if len(words) < 2:
        return ""
    (first, f1), (last, f2) = words[-2], words[-1]
    if f1 == "f" and len(words) > 2:  # 迷/v 上/f: a verb and its direction
        first, f1 = words[-3]
    if not (is_verb(f1) and is_verb(f2)) or len(last) < 2 or last in _ZH_COMPLEMENT:
        return ""
    if first in INTENT or first in AUX or last[:1] == last[1:2]:
        return ""  # 想出去; 看看: reduplicated, a try
    return first + last if first.startswith(("不", "没")) else last  # 不会开车: can't, said


def _in_phrase(flag: str) -> bool:
    """A word that goes on with the noun phrase a preposition takes (在金融街的一家银行):
    a noun, 的, a numeral, a classifier or an adjective."""
    return flag in NOUNS or flag in ("uj", "m", "q", "mq", "a", "b", "s", "f")


def _determiner(tagged: list[tuple[str, str]], i: int) -> bool:
    """这 / 那 before a time, a number or a classifier ("这周六", "那两天"): "this", no subject."""
    return tagged[i][1] == "r" and i + 1 < len(tagged) and tagged[i + 1][1] in ("t", "m", "q")


def _zh_self(tagged: list[tuple[str, str]]) -> bool:
    """A clause about its speaker (see the module doc)."""
    if len(tagged) > 2 and tagged[0][0] in _ZH_THEN and tagged[1][0] in _ZH_DECIDING:
        return True  # 那就先报周末班, 那还是放…: the speaker decides (on what the assistant proposed)
    if _fronted(tagged):
        return True  # 帐篷我借朋友的: the thing first, then the speaker and their verb
    if _dated_thing(tagged) or _done_with_speaker(tagged) or _news_of_another(tagged) \
            or _outcome_of_thing(tagged) or _noun_as_act(tagged) or _kept_doing(tagged):
        return True
    seen_verb = prep = False
    for i, (word, flag) in enumerate(tagged):
        if word in _ZH_SELF or (word.startswith("我") and word[1:] in _ZH_KIN):
            # 我 as the subject: not the object of a verb or a preposition before it (帮我,
            # 给我), and a verb after it (说起来我最近开始学游泳: a discourse verb first)
            before = tagged[i - 1] if i else ("", "")
            later = any(f.startswith("v") for _, f in tagged[i + 1:])
            governed = len(before[0]) == 1 and before[1].startswith(("v", "p"))
            opening = all(f.startswith(OPENING) for _, f in tagged[:i])
            if i == 0 or (not governed and later) or (opening and i + 1 < len(tagged)):
                # a clause opening on 我 (after a connective or an adverb: 另外我…) is
                # about me, whatever the dictionary tags its verb (我对花生过敏: 过敏 "nr")
                return True
        elif not seen_verb and not prep and flag == "d" and (word in _ZH_ASPECT or word in _ZH_HABIT):
            return True  # 刚下夜班, 每天都去…: an act just done or a habit, no subject before it
        elif not seen_verb and word in KIN_WORDS:
            return True  # 儿子今天第一天上幼儿园: a kin word as subject is the speaker's own
        elif not seen_verb and word in _ZH_HOME and (i == 0 or (
                i + 1 < len(tagged) and tagged[i + 1][0] == "的")):
            return True  # 家里的狗最近…, 家里两只猫: the speaker's home
        elif not seen_verb and not prep and not _determiner(tagged, i) and (
                flag in NOUNS or flag == "r"):
            return False  # another subject first: 她下周五有…, 这个… (在苏州: a place)
        seen_verb = seen_verb or flag.startswith("v")
        prep = flag == "p" or (prep and _in_phrase(flag))  # 在一家书店: the place, no subject
    # no subject before the first verb: Chinese leaves the speaker out (上周刚提了车)
    # — when the clause says when (上周, 十月), what the speaker means to do (想, 打算),
    # what they did (提了车) or have just done (刚下夜班); a remark on the weather
    # (难得出太阳) has none of these
    after_prep = False
    for i, (word, flag) in enumerate(tagged):
        if word in _ZH_SELF:
            return False
        if flag == "d" and word in _ZH_ASPECT and not after_prep:
            return True
        if flag.startswith("v"):
            # 了 after the verb or at the clause's end (改坐高铁了: a new state of things);
            # 吧 at its end proposes what the speaker will do (送去宠物店吧)
            done = (i + 1 < len(tagged) and tagged[i + 1][0] in ("了", "过")) or \
                tagged[-1][0] == "了" or (tagged[-1][0] == "吧" and not any(
                    w in _ZH_SELF or w in _ZH_LISTENER for w, _ in tagged))  # 帮我写个…吧: a request
            # 去 (first, or right after the first verb: 改成去) and a place name: a trip
            at = i + 1 if word != "去" and i + 1 < len(tagged) and tagged[i + 1][0] == "去" else i
            trip = tagged[at][0] == "去" and at + 1 < len(tagged) and tagged[at + 1][1] == "ns"
            return done or word in INTENT or _timed(tagged) or _placed(tagged[:i]) or trip \
                or intent_after(tagged[i + 1:])
        if (flag in NOUNS or flag == "r") and not after_prep and not _determiner(tagged, i):
            return False  # a subject of its own (这 before 周六 is "this", no subject)
        after_prep = flag == "p" or (after_prep and _in_phrase(flag))
    return False


_ZH_THIRD = frozenset(("他", "她", "他们", "她们"))
# verbs of saying, thinking and feeling: what another says or thinks is no news of them
_ZH_OPINION = frozenset(("觉得", "认为", "肯定", "想", "希望", "担心", "怕", "以为", "感觉", "嫌"))


def _news_of_another(tagged: list[tuple[str, str]]) -> bool:
    """Someone of the speaker's life as the subject — 他 / 她, or a person's name (阿凯,
    小林) — of something done (了, 过), dated, placed or done to a thing: the speaker's news
    of their own people (她在电视台做剪辑, 阿凯求婚了, 她下周五有个面试); not what they say
    or think (他肯定说…, 他觉得…)."""
    rest = [(w, f) for w, f in tagged if not f.startswith(OPENING)]
    if len(rest) < 2 or not (rest[0][0] in _ZH_THIRD or (rest[0][1] == "nr" and len(rest[0][0]) > 1)):
        return False
    verb = next((i for i, (_, f) in enumerate(rest) if is_verb(f)), None)
    if verb is None or any(w in _ZH_SAYING or w in _ZH_OPINION for w, _ in rest[:verb + 1]) \
            or a_state(tagged):
        return False
    after = rest[verb + 1:]
    return any(w in ("了", "过") for w, _ in after) or any(f == "t" for _, f in tagged) or any(
        f == "p" for _, f in rest[:verb]) or any(f in NOUNS or f in ("m", "q") for _, f in after)


# the prepositions of company: 跟他, 和弟弟, 同她 (a closed class of grammar words)
_ZH_WITH = frozenset(("跟", "和", "同", "与"))


def _kept_doing(tagged: list[tuple[str, str]]) -> str:
    """A thing with no owner said that keeps doing something to a thing — a noun, an adverb
    of how often (一直, 老是), a verb and its object (边牧一直咬沙发, 电脑老是弹广告): in a
    speaker's own turn their own, as Chinese leaves out 我的 — the thing, "" for any other
    clause. Not a person or a place, and not a state with no object (房价一直涨). The
    speaker's own said (我家边牧…, 我的边牧…) is theirs the more."""
    at = 0
    while at < len(tagged) and tagged[at][1] in ("c", "t", "f", "e", "y", "o"):
        at += 1
    if at < len(tagged) and (tagged[at][0] == "我家" or (
            tagged[at][0] in _ZH_SELF and tagged[at + 1:at + 2] == [("的", "uj")])):
        at += 1 if tagged[at][0] == "我家" else 2
    start = at
    while at < len(tagged) and tagged[at][1] in ("n", "nz", "ng") and tagged[at][0] not in LIGHT:
        at += 1
    subject, habit = "".join(w for w, _ in tagged[start:at]), False
    while at < len(tagged) and tagged[at][1] in ("d", "t", "f", "c"):  # 总是/c
        habit = habit or tagged[at][0] in _ZH_HABIT
        at += 1
    if len(subject) < 2 or not habit or at >= len(tagged) or not is_verb(tagged[at][1]):
        return ""
    return subject if any(f in NOUNS and w not in LIGHT for w, f in tagged[at + 1:]) else ""


def _noun_as_act(tagged: list[tuple[str, str]]) -> bool:
    """A clause with no verb and no subject that says when and ends on a noun right after
    "with someone" (周日晚上跟他视频, 明天和她电话): the noun is its predicate — what the
    speaker does with that person; Chinese uses such nouns as verbs."""
    if len(tagged) < 4 or any(is_verb(f) for _, f in tagged) or not _timed(tagged):
        return False
    (prep, pflag), (person, who), (_, lflag) = tagged[-3], tagged[-2], tagged[-1]
    if prep not in _ZH_WITH or pflag not in ("p", "c") or lflag not in ("n", "vn"):
        return False
    if not (person in _ZH_THIRD or who == "nr" or person in KIN_WORDS):
        return False
    return all(f.startswith(OPENING) for _, f in tagged[:-3])  # no subject before it


def _outcome_of_thing(tagged: list[tuple[str, str]]) -> bool:
    """A thing named by what it belongs to (X 的 Y: 岭南学院的提前面试, 朵朵的签证) as the
    subject of a verb done (过了, 下来了), no owner said: in a speaker's own turn, their news
    — as a dated thing is (`_dated_thing`). Not a time's thing (今天的天气), nor a report."""
    rest = [(w, f) for w, f in tagged if not f.startswith(OPENING)]
    de = next((i for i, (w, _) in enumerate(rest) if w == "的"), None)
    verb = next((i for i, (_, f) in enumerate(rest) if is_verb(f) and (de is None or i > de + 1)), None)
    if de is None or verb is None or de == 0 or rest[de - 1][1] not in NOUNS:
        return False
    if any(f == "r" or w in _ZH_SAYING or w == "们" for w, f in rest[:verb + 1]) or any(
            is_verb(f) for _, f in rest[:de]):
        return False  # (冬泳的大姐们都下水了: people, 们 — others' doing, no thing of the speaker's)
    return any(w in ("了", "过") for w, _ in rest[verb + 1:])


def _done_with_speaker(tagged: list[tuple[str, str]]) -> bool:
    """Another's act done with or to the speaker (阿凯昨天跟我求婚了, 公司给我加薪了): 我 after a
    preposition and a verb done (了, 过) after it — the speaker's news too; not a report
    (他跟我说…)."""
    for i, (word, _) in enumerate(tagged):
        if word in _ZH_SELF and i and tagged[i - 1][1] == "p":
            after = [w for w, _ in tagged[i + 1:]]
            return any(w in ("了", "过") for w in after) and not any(w in _ZH_SAYING for w in after)
    return False


def _timed(tagged: list[tuple[str, str]]) -> bool:
    """The clause says when: a time word, or a locative of two characters or more opening
    it (最近/f, 之前/f, 后来/f: jieba tags these times as places)."""
    return any(f == "t" for _, f in tagged) or (
        bool(tagged) and tagged[0][1] == "f" and len(tagged[0][0]) > 1)


def _placed(before: list[tuple[str, str]]) -> bool:
    """A preposition's phrase before the verb names a place (在杭州, 在一家书店): the
    predicate says where one does something — a place name, a place word, or a counted
    thing (一家/m), not a thing's inside (在文档里加一段: a request)."""
    for i, (_, flag) in enumerate(before):
        if flag == "p":
            phrase = before[i + 1:]
            return bool(phrase) and all(_in_phrase(f) for _, f in phrase) and any(
                f in ("ns", "s", "nt", "m", "mq") for _, f in phrase)
    return False


# verbs of saying and showing: "天气预报说明天…" reports, it tells no plan of the speaker's
_ZH_SAYING = frozenset(("说", "讲", "显示", "表示", "报道", "提到", "认为", "写", "通知"))


def _dated_thing(tagged: list[tuple[str, str]]) -> bool:
    """A thing with no owner named, as the subject of a clause that says when (婚礼是十月,
    手术定在下周三, 比赛改到下周六了): Chinese leaves out whose it is, and in a speaker's
    own turn a date is theirs — not a person (nr) or a pronoun, nor a report (天气预报说…);
    a place (ns) only as the subject of a verb done (三亚改五月了: the trip there moved;
    上海明天下雨 says when before its verb: weather). A connective may open it (对了婚礼…)."""
    start = next((i for i, (_, f) in enumerate(tagged) if f not in ("t", "c")), len(tagged))
    if start and start < len(tagged) and tagged[start][0] == "的":
        start += 1  # 周三的游泳课: the time's thing
    subjects = ("n", "vn", "nz", "nw", "ns") if tagged and tagged[-1][0] == "了" else (
        "n", "vn", "nz", "nw")
    if len(tagged) - start < 3 or tagged[start][1] not in subjects or any(w == "们" for w, _ in tagged[start:]):
        return False  # (a time may come first: 周三游泳改到周四了 — the Wednesday swim; 们: people)
    verb = next(((w, i) for i, (w, f) in enumerate(tagged) if i > start and is_verb(f)), None)
    return verb is not None and verb[0] not in _ZH_SAYING and (any(
        f == "t" for _, f in tagged[verb[1]:]) or (tagged[start][1] != "ns" and any(  # 团子昨晚…跑了
            f == "t" for _, f in tagged[start:verb[1]]) and any(w in ("了", "过") for w, _ in tagged[verb[1]:])))


def _set_apart(tagged: list[tuple[str, str]]) -> bool:
    """A clause that opens on a preposition or a time (在…, 从…, 下周…) and has a verb
    after it: a predicate with a setting of its own."""
    return bool(tagged) and tagged[0][1] in ("p", "t") and any(is_verb(f) for _, f in tagged[1:])


def _subjectless(tagged: list[tuple[str, str]]) -> bool:
    """A clause with no subject of its own — it opens on a verb, an adverb or a
    preposition (在一家医院上班), or it has no verb at all (一辆电车: what the clause
    before it named, said again): in a chain of clauses it carries on the subject of the
    one before it."""
    verbs = [i for i, (_, f) in enumerate(tagged) if is_verb(f)]
    if not verbs:
        return bool(tagged)
    after_prep = False
    for i, (word, flag) in enumerate(tagged[: verbs[0]]):
        if word in _ZH_SELF or word in KIN_WORDS or (flag == "m" and not after_prep):
            return False  # 一只叫花生: "one (of them)", a subject
        if (flag in NOUNS or flag == "r") and not after_prep and not _determiner(tagged, i):
            return False
        after_prep = flag == "p" or (after_prep and _in_phrase(flag))
    return True


def _asks_for_me(tagged: list[tuple[str, str]]) -> bool:
    """A request to the listener: the clause's first verb takes 我 (帮我…, 给我…, 告诉我…)."""
    for i, (word, flag) in enumerate(tagged[:-1]):
        if is_verb(flag) or word == "请":
            return tagged[i + 1][0] in _ZH_SELF or word == "请"
        if flag not in ("d", "c", "y", "e"):
            return False  # 下周六是我妈妈生日: a time first, a statement
    return False



def _fronted(tagged: list[tuple[str, str]]) -> str:
    """A noun phrase put before 我 / 我们 and a verb (帐篷/n 我 借 朋友 的, 北京/ns 我 去过):
    the object the speaker fronted as the clause's topic, as Chinese does — the phrase;
    "" when a verb comes between (老师说我…: the noun is a subject of its own) — unless
    a time and a verb follow the phrase, and the place it goes is the speaker's people's
    (猫那几天放/v 我姐家: the cat, put there by the speaker)."""
    run = []
    for i, (word, flag) in enumerate(tagged):
        if word in _ZH_SELF:
            after = tagged[i + 1:]
            return "".join(run) if run and any(is_verb(f) for _, f in after) else ""
        verb = next((k for k in range(i + 1, len(tagged)) if tagged[k][1][:1] not in "dt"), 0)
        if run and flag == "t" and verb and is_verb(tagged[verb][1]):  # 这几天先放…
            rest = [w for w, _ in tagged[verb + 1:]]
            return "".join(run) if any(w in _ZH_SELF and rest[k + 1:k + 2] and rest[k + 1] in _ZH_KIN
                                       for k, w in enumerate(rest)) else ""
        if (flag not in NOUNS or word in LIGHT) and not (flag == "e" and not run):
            return ""
        run += [word] if flag != "e" else []
    return ""


def _not_done(tagged: list[tuple[str, str]]) -> str:
    """我 + 不 + a verb of two characters that is a verb and its object, the dictionary
    reading each character so (喝/v 酒/n, 抽/v 烟/n), ending the clause (我不抽烟, 我不喝酒的):
    what the speaker does not do — "不" and the act, the negation kept; "" for a verb of
    knowing or feeling (知道: 道/q; 担心, an opinion verb) or where a thing is named."""
    words = [(w, f) for w, f in tagged if f not in ("x", "ul", "uj", "y")]
    while len(words) > 3 and words[0][1].startswith(OPENING):  # 对了我不喝酒
        words = words[1:]
    if len(words) < 3 or words[0][0] not in _ZH_SELF or words[-2][0] != "不":
        return ""
    verb, flag = words[-1]
    if not is_verb(flag) or len(verb) != 2 or verb in _ZH_OPINION:
        return ""
    if not all(f == "d" for _, f in words[1:-1]):
        return ""
    head, rest = chinese_tagged(verb[0]), chinese_tagged(verb[1])
    if not (len(head) == 1 and is_verb(head[0][1]) and len(rest) == 1 and rest[0][1] == "n"):
        return ""
    return "不" + verb


def _planned_act(tagged: list[tuple[str, str]]) -> str:
    """我 / 我们, a time, a verb of intent and a verb of two characters or more ending the
    clause (我们下个月要搬家, 我明年打算考研): the act the speaker plans — its verb; ""
    without a time (我要睡觉) or with an object after the verb."""
    words = [(w, f) for w, f in tagged if f not in ("x", "ul", "uj", "y")]
    if len(words) < 4 or words[0][0] not in _ZH_SELF or not _timed(words):
        return ""
    (intent, _), (verb, flag) = words[-2], words[-1]
    if intent not in INTENT or not is_verb(flag) or len(verb) < 2 or verb in AUX \
            or verb in INTENT or verb in _ZH_COMPLEMENT:
        return ""
    return verb if all(f in ("t", "d", "f", "m") for _, f in words[1:-2]) else ""


def read_chinese(sentence: str, names: frozenset[str], *, own: bool = False,
                 before: str = "", earlier: str = "") -> ZhReading | None:
    """A Chinese sentence, clause by clause (，；): the clauses about the speaker give its
    topics; a question clause states nothing, unless it names a thing of the speaker's
    (我的猫, 我妈); a sentence with no such clause but a noun or a time is context.
    `own`: the user's notes to themselves — every clause that is no question is theirs
    (给房东打电话说热水器的事: a to-do). `before`: the sentence before it in the same turn,
    whose last thing named a number with no noun counts (虎皮鹦鹉…？我家两只最近掉毛) and
    它 or a left-out object stands for; `earlier`: the speaker's turn before, for the same
    where `before` names nothing (乌龟怎么办？— 那还是放我姐那边: the turtle, put there)."""
    written = sentence.strip()
    if not written:
        return None
    text = chinese_simplified(written)  # read in simplified, topics as written (裡 stays 裡)
    groups: list[tuple[str, ...]] = []
    things = about = False
    # the thing the last clause named, a question too: what 两只 counts after it
    named = _named_in(before, names)
    # what 它 or a left-out object stands for: the last thing the speaker named, in the
    # turn before too (a number counts only what this turn named: 我再补一句 counts nothing)
    referent = named or _named_in(earlier, names, turn=True)
    parts, outer = clauses(text), referent
    about_it = False
    for n, clause in enumerate(parts):
        tagged = parse_clause(clause)
        words = [w for w, _ in tagged]
        # 呢 after 在 and a verb (旺仔在岸上看衣服呢) marks an act going on, no question
        going_on = words[-1:] == ["呢"] and any(
            w in ("在", "正在") and any(is_verb(f) for _, f in tagged[i + 1:]) for i, w in enumerate(words))
        question = (clause.strip().rstrip("。！!~～ ").endswith(_ZH_QUESTION) and not going_on) or (
            n == len(parts) - 1 and text.rstrip().endswith(("?", "？"))) or any(
            w in _ZH_ASKING for w in words) or a_not_a(words)
        owned = any(w in _ZH_SELF and i + 1 < len(words) and words[i + 1] == "的"
                    for i, w in enumerate(words)) or any(
            w.startswith("我") and w[1:] in _ZH_KIN for w in words) or _kept_by_speaker(tagged)
        topics = _zh_topics(tagged, names)
        # 盖布真的有用: an act found to work, taken up — no thing a later 它 stands for
        praised = "" if question else praised_act(tagged)
        taken = "" if question else _approved(tagged) or praised
        called = "" if question or (n and named) else called_name(tagged)  # 养在书房，叫豆包
        if taken:  # 修复日志这个好: the phrase is the thing, whole
            topics = [(0, taken)]
        elif called and referent:  # 我养了一只狗 — 叫豆豆: the dog is called 豆豆
            topics = [(-2, referent), (-1, called)]
            owned = True
        elif not question and (refused := negated_act(tagged)):  # 我不吃辣: 不吃辣, never 辣
            topics = [(-1, refused), *((r, t) for r, t in topics if t not in refused)]
        elif (front := _fronted(tagged)) and not question:  # 帐篷我借朋友的: the tent first
            topics = [(-1, front), *((r, t) for r, t in topics if t != front)]
        elif not topics and not question and (job := one_who(tagged)):
            topics = [(0, job)]  # 我是开出租的: what the speaker does, the verb and its object
        elif not topics and (act := _not_done(tagged)):
            topics = [(1, act)]  # 我不喝酒的: what the speaker does not do, negation kept
        elif not topics and not question and (act := _planned_act(tagged)):
            topics = [(1, act)]  # 我们下个月要搬家: the plan
        elif not topics and named and not question and goes_to_do(tagged) and _timed(tagged) \
                and any(w in _ZH_SELF for w in words):
            topics = [(0, named)]  # …有夜校课，那我周三晚上也去上: the thing named before
            owned = True  # 那我…: the speaker goes (a 那 "then" before 我 is no subject)
        elif not topics and (act := _activity(tagged) or (not _decided_amount(tagged) and done_for(tagged))):
            topics = [(1, act)]  # 迷上烘焙了, 快走一小时: the activity, where no thing is named
        elif not topics and named and headless_count(tagged):
            topics = [(1, named)]  # 虎皮鹦鹉…？我家两只最近掉毛: the two are the parakeets
        if not question and _news_of_another(tagged):  # 旺仔在岸上看衣服呢: news of 旺仔, first
            at = next(i for i, (_, f) in enumerate(tagged) if not f.startswith(OPENING))
            if tagged[at + 1:at + 2] != [("的", "uj")]:  # 老公的小超市: the shop's news
                topics = [(-1 if t == tagged[at][0] else r, t) for r, t in topics]
        if (doer := _kept_doing(tagged)) and not question:  # 边牧一直咬沙发: about the dog
            topics = [(-1, doer), *((r, t) for r, t in topics if t != doer)]
        if not topics and not question and outer and counts_an_act(tagged):
            topics = [(0, outer)]  # 学了一年半: what the turn before named (not a clause of this one)
        # 佢哋 (佢/r 哋/u) is "they", people: no thing the speaker named
        it = bool(referent) and any(w in _ZH_IT and words[i + 1:i + 2] != ["哋"]
                                    for i, w in enumerate(words))
        if referent and not question and (it or (not taken and (
                _object_left_out(tagged) or _handed_to(tagged)
                or (not topics and (_decided_amount(tagged) or moved_to(tagged)))))):
            # 乌龟怎么办？— 那还是放我姐那边，它以前在那住过: the turtle, left out or 它;
            # 那就改成十天一次: how often the thing named before is done
            topics = [(0, referent), *((r, t) for r, t in topics if t != referent)]
            owned = owned or it  # 它 is the thing the speaker named: theirs
        if topics and topics[0][1] not in placed(tagged) and topics[0][1] != praised:  # 养在书房: where
            named = referent = topics[0][1]  # the first it names, in the order written
        things = things or bool(topics)
        # a clause with no subject right after one about the speaker carries it on
        # 帮我安排一下 after a statement asks the listener: it carries no subject on (a
        # request on its own is read as before: what the user is working on)
        carried = about and _subjectless(tagged) and not _asks_for_me(tagged)
        # a thing changed (延期了) whose new date the next clause gives (…，改到一月八号): a
        # dated thing across the comma, as 比赛改到下周六了 is in one clause
        # — not where the next clause has the speaker as its subject (冬泳的老哥们都下去了 我
        # 游了八年了: a statement of its own, the date its)
        after = parse_clause(parts[n + 1]) if n + 1 < len(parts) else []
        moved = bool(tagged) and tagged[-1][0] == "了" and bool(after) and after[0][0] not in _ZH_SELF \
            and _dated_thing(tagged + after)
        about = not question and (own or owned or bool(taken) or _zh_self(tagged) or carried or moved)
        if (question and not owned) or not (owned or about):
            continue
        if not topics:
            continue
        ranked = tuple(dict.fromkeys(t for _, t in sorted(topics, key=lambda f: f[0])))
        # a subject-less predicate with a setting of its own — where or when, before its
        # verb (在一家银行上班, after 我刚搬到北京) — tells one more thing; one that opens on
        # its verb (叫豆豆, 做服务器开发: what the thing before it is called, what the job
        # is), a clause with a subject again (我一做饭它就…) or one without a verb goes on
        # about the thing before it
        # one of the speaker's people as the subject after another thing (…请假，儿子从
        # 上海回来, 我不吃牛肉，老公不吃辣) is news of them: a fact of its own, on them
        kin = kin_subject(tagged)
        # the speaker as the subject again after a clause on the thing 它 stood for (…给它
        #洗，我做空中服务员: the job) tells a fact of its own
        anew = about_it and bool(words) and words[0] in _ZH_SELF
        about_it = it
        if groups and not (_subjectless(tagged) and _set_apart(tagged)) and not kin and not anew:
            groups[-1] = tuple(dict.fromkeys([*ranked, *groups[-1]] if called else [*groups[-1], *ranked]))
        else:
            groups.append(tuple(dict.fromkeys([kin, *ranked])) if kin and groups else ranked)
    if not groups:  # a thing or a time named (周四上午十点): context for the statement beside it
        when = any(f == "t" for c in parts for _, f in chinese_tagged(c.strip()))
        return (ZhReading((), context=True) if (things or when) and not text.endswith(_ZH_QUESTION)
                else None)
    return ZhReading(tuple(tuple(_as_written(t, text, written) for t in g) for g in groups))


# the pronouns of place, "there" and "here" (a closed class of grammar words)
_ZH_THERE = frozenset(("那里", "那儿", "那边", "这里", "这儿", "这边"))
# the pronouns of a thing or an animal (它, and 牠 as Taiwan writes it for an animal, which
# OpenCC's t2s keeps), and Cantonese 佢, one pronoun for he, she and it alike (PyCantonese
# tags it a pronoun, textrules/nlp.py)
_ZH_IT = frozenset(("它", "它们", "牠", "佢"))  # 牠们 is cut 牠/zg 们, 佢哋 佢/r 哋/u


def _object_left_out(tagged: list[tuple[str, str]]) -> bool:
    """The clause's first verb hands over or puts away a thing it does not name: a verb
    then 给 (托/v 给/p 邻居, 交给/v 我姐) or a person's place (放/v 我/r 爸/n 那边/r: what
    the verb takes ends on a place pronoun) — Chinese leaves out the object it has just
    said, the thing named before. Not with a subject of its own before the verb."""
    rest = [(w, f) for w, f in tagged if not f.startswith(OPENING) and f not in ("x", "y")]
    at = next((i for i, (_, f) in enumerate(rest) if is_verb(f)), None)
    if at is None or any(f in NOUNS or (f == "r" and w not in _ZH_THEN) for w, f in rest[:at]):
        return False
    verb, after = rest[at][0], rest[at + 1:]
    if verb.endswith("给") and len(verb) > 1 or (after[:1] and after[0][0] == "给"):
        # 交给我姐, 托给邻居 — not 给 before a verb of its own (记得给编辑发发票: "for")
        person = 0 if verb.endswith("给") else 1
        return not any(is_verb(f) for _, f in after[person + 1:])
    taken = []
    for word, flag in after:
        if flag not in NOUNS and flag != "r":
            break
        taken.append((word, flag))
    # 我爸那边, 朋友那儿: a person, then where they are (a pronoun of place after a noun)
    return len(taken) > 1 and taken[-1][0] in _ZH_THERE and any(f in NOUNS for _, f in taken[:-1])




def _decided_amount(tagged: list[tuple[str, str]]) -> bool:
    """A decision (那就…, 那还是…) that names no thing but an amount, a time or how often
    (那就改成十天一次, 那就改到周五): it changes the thing the speaker named before."""
    return len(tagged) > 2 and tagged[0][0] in _ZH_THEN and tagged[1][0] in _ZH_DECIDING \
        and any(f in ("m", "mq", "t") for _, f in tagged[2:])


def _handed_to(tagged: list[tuple[str, str]]) -> bool:
    """A verb that takes a person (我室友, 邻居, 我妈) and then verbs with no object to the
    clause's end (拜托我室友帮忙喂, 请邻居喂): the person is to do something to a thing
    Chinese leaves out, the thing named before — not a going or a modal last (让他去), nor
    a verb that holds its object (请朋友吃饭: 饭 is a noun alone)."""
    for i, (_, flag) in enumerate(tagged):
        if not is_verb(flag):
            continue
        j = i + 1 + (i + 1 < len(tagged) and tagged[i + 1][0] in _ZH_SELF)
        person = tagged[j] if j < len(tagged) else ("", "")
        rest = tagged[j + 1:]
        if (person[1] in ("n", "nr") or person[0] in KIN_WORDS) and person[0] not in LIGHT and rest \
                and all(is_verb(f) for _, f in rest) and rest[-1][0] not in AUX \
                and rest[-1][0] not in _ZH_COMPLEMENT \
                and not (len(rest[-1][0]) == 2 and alone(rest[-1][0][1]) in NOUNS):
            return True
    return False


def _named_in(text: str, names: frozenset[str], *, turn: bool = False) -> str:
    """The last thing `text` names (`_first_named`) — with `turn`, a whole turn, the first:
    what the turn is about (柯基最近老掉毛，有什么办法: the corgi, not the way asked for) —
    in the characters it is written in."""
    if not text.strip():
        return ""
    simplified = chinese_simplified(text)
    return _as_written(_first_named(simplified, names, last=not turn), simplified, text)


def refers_back(turn: str) -> bool:
    """A turn that speaks of 它 / 牠 before it names a thing of its own (它今年九岁了，会不会
    是牙的问题), or names none but in a remark on what a place is like (最近桂林晚上比较闷):
    it is still about the thing named before it, which stays what a later 它 stands for."""
    remark = False
    for clause in clauses(chinese_simplified(turn)):
        tagged = parse_clause(clause)
        if any(w in _ZH_IT for w, _ in tagged):
            return True
        remark = remark or a_state(tagged)
        if _zh_topics(tagged, frozenset()) and not a_state(tagged):
            return False
    return remark


def _first_named(text: str, names: frozenset[str], *, last: bool = True) -> str:
    """The first thing the last clause of `text` that names one names (its noun phrase);
    not `last`: of the first such clause."""
    parts = clauses(text)
    for clause in reversed(parts) if last else parts:
        tagged = parse_clause(clause)
        found = [f for f in _zh_topics(tagged, names) if f[1] not in placed(tagged)]  # 养在书房
        if found:
            return found[0][1]
    return ""




def _as_written(phrase: str, simplified: str, written: str) -> str:
    """`phrase` of the simplified text in the characters the person wrote (same places)."""
    at = simplified.find(phrase)
    return written[at:at + len(phrase)] if at >= 0 else phrase


def _kept_by_speaker(tagged: list[tuple[str, str]]) -> bool:
    """A thing named by what the speaker does with it — 我 + verb + 的 + noun (我养的仓鼠,
    我报的班, 我们开的店): a relative clause that makes it the speaker's, in a question too."""
    for i, (word, _) in enumerate(tagged):
        if word not in _ZH_SELF:
            continue
        j = i + 1
        while j < len(tagged) and tagged[j][1][:1] in ("d", "v"):
            j += 1
        verbs = any(is_verb(f) for _, f in tagged[i + 1:j])
        if verbs and j + 1 < len(tagged) and tagged[j][0] == "的" and tagged[j + 1][1] in NOUNS:
            return True
    return False


_ZH_LISTENER = ("你", "您", "你们")


def asks_about_listener(sentence: str, earlier: str = "") -> bool:
    """A question about the user (你平时有什么爱好？, 您退休前是做什么的？, 你考哪个学校？): the
    listener as its subject or owner — 你 / 您 not after a verb or a preposition (需要我帮你…吗？
    is an offer) — or a family member with no owner said (孩子多大了？: the user's own), or a
    thing with no owner said as its subject that the user's turn before named (`earlier`:
    我的车最近… — 车开了多少公里？), or, with no subject, right after an interrogative
    (店里上新品了 — 是什么新品？). What the user answers to it is theirs, though the
    answer has no subject."""
    text = chinese_simplified(sentence.strip())
    tagged = [(w, f) for w, f in chinese_tagged(text) if w.strip()]
    if not text.rstrip("。 ").endswith(_ZH_QUESTION) and not any(w in _ZH_ASKING for w, _ in tagged) \
            and not a_not_a([w for w, _ in tagged]):
        return False
    first_verb = next((i for i, (_, f) in enumerate(tagged) if is_verb(f)), len(tagged))
    # (a noun, or a morpheme the dictionary tags alone: 车/zg)
    subject = [w for w, f in tagged[:first_verb] if (f in NOUNS or f == "zg") and w not in LIGHT]
    # a pronoun subject of its own (这个电动车…) asks of no thing of the user's; an
    # interrogative one (哪个社区) asks which
    pronoun = any(f == "r" and w not in _ZH_ASKING for w, f in tagged[:first_verb])
    if earlier and subject and not pronoun and subject[0] in chinese_simplified(earlier):
        return True  # 车开了多少公里？ after 我的车…: the user's car
    if earlier and not subject and not pronoun and any(
            tagged[i - 1][0] in _ZH_ASKING and len(w) > 1 and w not in LIGHT
            and w in chinese_simplified(earlier) for i, (w, _) in enumerate(tagged) if i):
        # 是什么新品？ after 店里上新品了: what the user's thing is (what 什么 asks of is a
        # thing by its place, whatever the dictionary tags it: 什么义卖/v)
        return True
    for i, (word, _) in enumerate(tagged):
        listener = word in _ZH_LISTENER or (word[:1] in ("你", "您") and word[1:] in _ZH_KIN)
        governed = i > 0 and tagged[i - 1][1][:1] in ("v", "p")
        if (listener and not governed) or (word in KIN_WORDS and not governed and not any(
                w in _ZH_SELF or w in _ZH_THIRD for w, _ in tagged[:i])):
            return True
    return False


def asked_of_listener(sentence: str, names: frozenset[str]) -> tuple[str, ...]:
    """The things an assistant's question asks the user about themselves (你是在深圳工作吗？
    你家的猫几岁了？): a question whose subject is 你 / 您 (before its first verb, or a thing
    of theirs: 你家, 你的) — what a "对" / "是的" after it confirms of the user. () for any
    other sentence."""
    written = sentence.strip()
    text = chinese_simplified(written)
    tagged = [(w, f) for w, f in chinese_tagged(text) if w.strip()]
    if not text.rstrip("。 ").endswith(_ZH_QUESTION) and not any(w in _ZH_ASKING for w, _ in tagged) \
            and not a_not_a([w for w, _ in tagged]):
        return ()
    first_verb = next((i for i, (_, f) in enumerate(tagged) if is_verb(f)), len(tagged))
    if not any(w in _ZH_LISTENER or (w.startswith("你") and w[1:] in _ZH_KIN)
               for w, _ in tagged[:first_verb]):
        return ()
    # the listener's things are what is asked: 你 and its 的 out, the rest read as a clause
    kept = [(w, f) for i, (w, f) in enumerate(tagged) if w not in _ZH_LISTENER
            and not (w == "的" and i and tagged[i - 1][0] in _ZH_LISTENER)]
    kept = [(w[1:], "n") if w.startswith("你") and w[1:] in _ZH_KIN else (w, f) for w, f in kept
            if w != "你家"]  # 你家的猫: the cat
    return tuple(dict.fromkeys(_as_written(t, text, written)
                               for _, t in sorted(_zh_topics(kept, names), key=lambda f: f[0])))
