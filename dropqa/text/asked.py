"""What a question asks, and whether a quoted sentence holds it.

A question names a **subject** (a court, a patient, a product: the words that name its document) and
asks an **attribute** of it ("RPO", "企业版 … 价格", "显示器", "appointed … CEO") of an expected **kind**:
who → a person or role holder, when → a date or time, how much does it cost → an amount of money, what
percentage / 占比多少 → a share, how many / how much → a number, anything else → a named thing. "High confidence"
is a promise that the quoted sentence holds the asked attribute (in the question's words or their translation)
and an answer of the asked kind; this module checks it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import Literal

from dropqa.text.entities import ANY_YEAR, MONTH_NAME, YEAR_DIGITS, chinese_names, chinese_people
from dropqa.text.lang import detect_language
from dropqa.text.segment import (
    ACCENTED,
    english_stopwords,
    has_han,
    holds,
    names_a_thing,
    query_terms,
    segment_words,
    stopwords,
    whole_terms,
)
from dropqa.text.subjects import MONTHS, is_document_kind, is_placeholder, withheld_names

_MARK = re.compile(r"\s*\[\d+\]")  # a citation marker, "[3]"
# a chat line's speaker and time, "王磊（08:53）："
_CHAT_STAMP = re.compile(r"[^\s：:，。；]{1,20}[（(]\d{1,2}:\d{2}(?::\d{2})?[）)][：:]")
AnswerKind = Literal["person", "place", "date", "duration", "money", "share", "number", "thing"]
# the kinds of answer a document states as a value (a length of time, a date, a count, an amount, a share)
VALUE_KINDS: tuple[AnswerKind, ...] = ("duration", "date", "number", "money", "share")

# 名字 of a thing that is no person: "公司叫什么名字", "这个产品的名字是什么"
_NAMED_THING = re.compile(r"(?:公司|企业|集团|产品|项目|单位|机构|平台|系统|品牌|学校|医院|门店|店|软件|型号|小区|"
                          r"街道|城市|地方|基金|子公司|工厂|品种|疫苗|药|课程)(?:叫(?:做)?什么名字|的?名字(?:是|叫))")
_WHO = re.compile(r"(?i)\bwho(?:m|se)?\b|谁|哪位|哪个人|何人|什么人|姓名|名字|负责人是")
_WHEN = re.compile(r"(?i)\bwhen\b|what (?:date|time|year|day|month)s?\b|which (?:date|year|day|month)s?\b|"
                   r"何时|什么时候|哪天|哪一天|哪年|哪一年|几月|几号|几点|日期|时间是|哪个月")
_HOW_MANY = re.compile(r"(?i)how (?:many|much|long|old|often|far|large|big|high|fast)|what (?:percentage|share|number|"
                       r"amount|price|cost|rate|fee)|多少|几[个位次项天年月台名家条份种岁]?|多久|多长|多大|多高|多远|比例|"
                       r"百分之|占比|金额|价格|费用|数量")

# A question asking which one ("涉及金额最大的品牌是哪一个"): a named thing, though it speaks of an amount — unless it
# asks a count or an amount outright as well, or compares the ones it names by a measure.
_WHICH_Q = re.compile(r"(?i)哪(?:一)?[个家位种项款类]|\bwhich\b")
_COUNT_ASKED = re.compile(r"(?i)how (?:many|much)|多少|几[个位次项天年月台名家条份种岁]?(?![乎])|"
                          # a comparison by a measure asks each one's measure ("哪家公司…的比例更高")
                          r"更[早晚长短久多少高低大小]|\b(?:higher|lower|more|less|larger|smaller|greater)\b")

# A comparison of the named subjects by a measure ("谈某和倪某某的判刑时间谁更长", "whose sentence is longer, X or
# Y?", "哪家公司的营收更高"): the answer names one of them, but what a line must hold is each one's measure — a
# date for which is earlier, a length of time for which lasts longer, a number for which is more — not a name.
_COMPARE_Q = re.compile(r"(?i)(?:谁|哪[个位家一项种]?)(?:的)?[^，,。？?]{0,12}?"
                        r"更(?P<zh>[早晚长短久多少高低大小快慢重轻])|"
                        r"\b(?:who|whose|which)\b[^?]*?\b(?P<en>earlier|later|sooner|longer|shorter|more|fewer|less|"
                        r"higher|lower|larger|smaller|greater|bigger|older|younger|faster|slower|heavier|lighter)\b")
_COMPARE_TIME = re.compile(r"(?i)时间|刑期|判刑|期限|时长|工期|周期|年限|"
                           r"sentenc|\bterms?\b|\btime\b|duration|period|prison")
# A length of time asked outright: a prison term, how long something lasts, is kept or takes.
_DURATION_Q = re.compile(r"(?i)刑期|多久|多长时间|多长的时间|时长|how (?:quickly|soon)\b|"
                         r"how long\b[^?]*\b(?:sentenc|prison|imprison|hospitali|stay|"
                         r"last|take|took|serve|wait|kept|keep|retain|stored|valid|run|term|period|notice|"
                         r"warranty|probation|trial|leave)|"
                         # a count of years, months, days… is a length of time ("判处几年", "how many days of leave")
                         r"(?:几|多少)个?(?:年|月|星期|周|天|小时|分钟)(?![份度代级龄底初末])|"
                         r"how many (?:years|months|weeks|days|hours|minutes)\b")
# An amount of money asked: a price or fee, or "how much" of a thing counted in money — an allowance, a salary, a
# budget, what was spent or invested ("How much is the home-office allowance?", "研发投入是多少") — not "how much
# storage", "how much time".
_MONEY_WORDS = (r"cost|pay|paid|charge|price|fee|allowance|stipend|salary|salaries|wage|bonus|budget|subsid\w*|"
                r"reimburs\w*|spen[dt]|invest\w*|fund\w*|donat\w*|fine[ds]?|penalt\w*|compensation|damages|"
                r"dividend|revenue|turnover|income|profit|earn\w*|sales|capital|loan|debt|deposit")
_MONEY_Q = re.compile(rf"(?i)how much (?:does|do|is|are|was|were|will|did|would|has|have|had)\b[^?]*"
                      rf"\b(?:{_MONEY_WORDS})|"
                      rf"how much (?:{_MONEY_WORDS})\b|"
                      r"what (?:is|are) the (?:\w+ )?(?:price|cost|fee|charge)s?\b|\b(?:price|cost|fee)s? of\b|"
                      r"\bwhat (?:does|do|did|will|would) [^?]{1,60}\b(?:cost\b|charge\s+(?:for|to|per|me|us|you)\b)|"
                      # "what was the revenue of each company", "what were its net profit and revenue in 2021": the
                      # figure a report gives in money, named last before what it is of
                      r"what (?:is|are|was|were) (?:the |its |their |each )?(?:(?!of\b)[\w'’-]+ ){0,3}?"
                      r"(?:revenues?|turnover|income|(?:net )?profits?|earnings|dividends?|fines?|compensation)"
                      r"(?= of\b| in\b| for\b| at\b| from\b| and\b| attributable\b| \w+ed\b|\s*[?,]|$)|"
                      r"多少钱|几块钱?|多少块|价格|价钱|收费|费用|售价|报价|"
                      # a fee the question names, then how much ("检定费要我出多少", "违约金按多少收"): not 消费者
                      r"[\u4e00-\u9fff](?:费|金)[要是为有共达按每月年天次我你他她出交收缴付了一大概约总计合需得]{0,6}(?:多少|几)"
                      r"(?![个位次项天年月名家条份种岁]|小时|分钟)|"
                      r"(?:补贴|津贴|工资|薪资|薪酬|奖金|预算|罚款|罚金|赔偿|投资|投入|营业收入|营收|收入|利润|净利润|分红|"
                      r"募集资金|资金|金额|价款|报销)(?:总额|总计|合计)?(?:分别|各自|各|都)?(?:是|为|有|共|达到?)?(?:多少|几)|"
                      # the amount asked before its name: "一共做了多少营收", "能拿多少补贴"
                      r"(?:多少|几)(?:钱的)?(?:营收|营业收入|收入|净利润|利润|预算|投资|补贴|津贴|工资|薪资|奖金|罚款|罚金|赔偿)|"
                      # a fee named after how much: "收多少停车费", "交多少物业费" (not 多少消费者)
                      r"(?:多少|几)[\u4e00-\u9fff]{0,3}(?<![消免])费(?![用者])")
# How much a figure changed, which a report gives as a share as often as an amount ("sales grew by 12%")
_CHANGE_Q = re.compile(r"(?i)\b(?:grow|grew|grown|increase|decrease|rise|rose|risen|fall|fell|fallen|drop|change|"
                       r"decline|improve|shrink|shrank)\w*|增长|增加|下降|减少|变化|增速|增幅|降幅")
_MONEY = re.compile(r"(?i)\d[\d,.]*\s*(?:万|亿|thousand|million|billion|bn)?\s*"
                    r"(?:元|块|美元|欧元|英镑|yuan|rmb|cny|usd|eur|gbp|dollars?|euros?)(?![a-z])|"
                    r"(?:[¥￥$€£]|rmb|cny|usd|eur|gbp)\s*\d|"
                    # a value under a label that gives the currency, or a price per unit: "预算（万元）: 1,200",
                    # "Revenue (RMB million): 562", "物业服务费（元/㎡·月）: 2.10", "Rate (GBP per hour): 14"
                    r"[（(]\s*(?:千|万|百万|亿)?\s*(?:元|美元|欧元|英镑|yuan|rmb|cny|usd|eur|gbp|[¥￥$€£])"
                    r"(?:\s+(?:thousand|million|billion))?(?:\s*(?:/|per\s)[^)）:：]{1,12})?"
                    r"\s*[)）]\s*[:：]?\s*[¥￥$€£]?\s*\d|"
                    # a price that is nothing: "基础版: 免费", "the Basic plan is free" — not "可免费升级", "free trial"
                    r"(?:[:：]\s*|为|是)免费|免费(?:[。；;]|$)|(?:\bis|\bare|:)\s*free\b|\bfree(?: of charge)?[.;]?$")
# A share asked: a percentage or a proportion of a whole ("what percentage of sales came from online",
# "线上销售额占总销售额的比例是多少", "占比多少") — answered by a percentage or a fraction, not by any number
# ("launched its app in 14 cities"). Not a rate with a unit ("pulse rate": beats per minute), nor a comparison
# ("哪家…比例更高").
_SHARE_Q = re.compile(r"(?i)\bwhat (?:percentage|percent|share|proportion|fraction)\b|"
                      r"\bwhat (?:is|was|are|were) the (?:\w+ )?(?:percentage|proportion)\b|"
                      r"\bhow (?:large|big|high) (?:a |is the |was the )?(?:share|percentage|proportion)\b|"
                      r"百分之(?:多少|几)|百分比(?:是|为)?(?:多少|几)|占比(?:是|为|有)?(?:多少|几)|"
                      r"(?:比例|比重)(?:是|为|有|达到?)?(?:多少|几)|占(?!地|用)[^，,。；;？?]{0,24}?(?:多少|几成|百分之几)")
# A share as written: "17.6%", "17.6 percent", "百分之二十", "三分之一", "one third", "half of".
_SHARE = re.compile(r"(?i)\d+(?:[.,]\d+)?\s*(?:%|％|‰|percent\b|per cent\b|percentage points?\b)|"
                    r"百分之[零一二三四五六七八九十百点\d.]+|[\d一二三四五六七八九十百]+分之[\d一二三四五六七八九十]+|"
                    r"\b(?:half|one[- ]third|a third|two[- ]thirds|a quarter|one[- ]quarter|three[- ]quarters)\b")
# A number: digits, or Chinese numerals that count something — several of them ("十五", "二十"), an ordinal
# ("第三"), or one before a measure word ("三台", "两名", "一次") — not the 一 of 一种, 一些, 统一, 唯一.
_CN_MEASURE = "个只台名人次项天年月日周时分秒米里克吨元岁倍层家件条份辆座所间股位届期批场套张页章节款"
# English counts written as words ("up to two days per week", "twenty-four (24) months") — not "one", which is as
# often a pronoun ("one of the …") as a count.
_EN_COUNT = (r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
             r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|"
             r"dozen)\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")  # a number as written whole: "1,372", "2.00"
_DIGIT = re.compile(rf"{_NUMBER.pattern}|第[一二三四五六七八九十百千两]+|[一二三四五六七八九十百千万亿两]{{2,}}|"
                    rf"[一二三四五六七八九十百千万亿两][{_CN_MEASURE}]|(?i:{_EN_COUNT})")
# A calendar date or a time of day, whose digits say when, not how many: "26th, February", "March 15, 2023",
# "2023年4月15日", "4月15日", "2023-04-15", "10:15", "in 2021", "fiscal 2020", "September 2012" — not a count that
# looks like a year ("2000 employees").
_MONTH = rf"{MONTH_NAME}\.?"
_CALENDAR = re.compile(
    rf"(?i)(?:19|20)\d{{2}}\s*年(?:\s*\d{{1,2}}\s*月(?:\s*\d{{1,2}}\s*[日号])?)?|\d{{1,2}}\s*月\s*\d{{1,2}}\s*[日号]|"
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:of\s+)?{_MONTH}(?:,?\s*(?:19|20)\d{{2}})?|"
    rf"\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s*(?:19|20)\d{{2}})?|"
    rf"\b{_MONTH},?\s+(?:19|20)\d{{2}}\b|"
    rf"\b(?:19|20)\d{{2}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}\b|\b\d{{1,2}}:\d{{2}}\b|"
    rf"\b(?:in|since|from|by|until|till|during|before|after|fiscal|fy|year)\s*(?:19|20)\d{{2}}\b")
# A birth date, which every judgement's and record's opening gives its person: no answer to when anything else
# happened ("判决日期" is not 尹某's "1985年1月13日出生").
_BIRTH_DATE = re.compile(
    r"(?i)(?:19|20)\d{2}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?\s*(?:出生|生)|"
    r"(?:出生日期|出生年月|出生于|生于)\s*[:：]?\s*[^，,。；;\n]{0,20}|"
    r"(?:birth\s*date|date of birth|\bborn(?: on| in)?)\s*[:：]?\s*[^.;\n]{0,30}?(?:19|20)\d{2}")
_BIRTH_Q = re.compile(r"(?i)出生|生日|birth|\bborn\b|年龄|\bage\b|how old|\b(?:older|younger|oldest|youngest)\b|"
                      r"年长|年轻|年纪|岁数")
# How old someone is, asked outright or by comparison: a birth date answers it as an age does ("who is older,
# J. Gonzalez or M. Harris?" of judgements that give "Date of Birth: 11th August, 1964").
_AGE_Q = re.compile(r"(?i)年龄|年纪|岁数|年长|年轻|\bage\b|how old|\b(?:older|younger|oldest|youngest)\b")
# an age as records and judgements write it: "Age: 82", "年龄：45岁", "82岁", "11-year-old", "aged 45",
# "at the age of 24"
_AGE_GIVEN = re.compile(r"(?i)\d+\s*(?:周岁|岁)|(?:年龄|age)\s*[:：]?\s*\**\s*\d+|\d+[\s-]*years?[\s-]*old|"
                        r"\baged\s+\d+|\bage\s+of\s+\d+")
_DATE = re.compile(
    r"(?i)\b(?:19|20)\d{2}\b|(?<![街路道巷弄村楼室栋座号\d])\d{1,4}\s*[年月日号时点]|\d{1,2}:\d{2}|"  # 4号: no street's
    rf"\b{_MONTH}|"  # a month's name, not "market" or "junior"
    r"\b\d{1,2}(?:st|nd|rd|th)\b|[一二三四五六七八九十]+月|周[一二三四五六日]|星期|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b")
# A time that is no calendar date: a season, an era, a dynasty, a century ("只有在春季化雪的时候可能会短期关闭",
# "可能晚至孔雀王朝时期才出现", "in the late Middle Ages", "compiled in 1513", "the 1990s") — an answer to when that
# the kinds gate accepts, though no sentence is preferred for it (a chat line's "16:40" and "the Mughal Empire from
# 1649" are times of something else as often).
_PERIOD = re.compile(
    r"(?i)(?<![\d.,])1\d{3}(?!\d|[.,]\d)|\b(?:in|since|by|until|around|circa|c\.)\s+\d{3}\b|\b\d{1,4}\s*(?:ad|bc|bce|ce)\b|"
    r"\b\d{2,4}s\b|"
    r"春季|夏季|秋季|冬季|春天|夏天|秋天|冬天|[春夏秋冬]末|[春夏秋冬]初|世纪|年代|年间|[王皇]?朝(?:时期|末年|初年|年间)|"
    r"时期|时代|初期|中期|末期|晚期|早期|期间|之际|节前|节后|\b(?:spring|summer|autumn|winter|centur(?:y|ies)|"
    r"decades?|era|period|dynasty|middle ages|ages?|reign)\b|"
    r"\b(?:end|start|beginning|middle) of\b|\b(?:last|first|next|every|each|same|following) (?:\w+ )?"
    r"(?:day|week|month|quarter)\b|当天|当日|次日|月底|月初|月末|年底|年初|年末|季末|工作日")
# A length of time: a count of years, months, weeks, days or hours — not a calendar date's year or month
# ("2023年4月", "4月15日") — or one without end (无期徒刑, "life imprisonment").
_CN_COUNT = "一二三四五六七八九十两半"
_DURATION = re.compile(
    rf"(?i)(?<![\d.])\d{{1,3}}(?:\.\d+)?\s*(?:个)?(?:年(?![\d{_CN_COUNT}〇零]{{0,3}}月)|个月|个星期|周|天|小时|分钟|"
    rf"工作日|自然日|日(?=内|以内|之内))|"
    rf"(?<![\d.])\d{{1,3}}(?:\.\d+)?(?:\s+|-)(?:(?:working|business|calendar)\s+)?"
    rf"(?:years?|months?|weeks?|days?|hours?|minutes?)\b|"
    rf"[{_CN_COUNT}]+(?:个)?(?:年(?![{_CN_COUNT}〇零]{{0,3}}月)|个月|个星期|周|天|小时|工作日|日(?=内|以内|之内))|"
    r"\b(?:(?:twenty|thirty|forty|fifty|sixty)(?:-(?:one|two|three|four|five|six|seven|eight|nine))?|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|eighteen|half an?)"
    r"(?:\s*\(\d{1,3}\))?(?:\s+|-)(?:years?|months?|weeks?|days?|hours?)\b|无期|终身|\blife (?:imprisonment|sentence)|"
    r"\bto life\b|死刑|\bdeath (?:penalty|sentence)")
_PERSON = re.compile(
    r"\b[A-Z]\.\s?[A-Z][a-z]+|\b[A-Z][a-z]+[ \t]+[A-Z][a-z]+|[\u4e00-\u9fff]某{1,2}|"
    r"(?:由|是|为|：|:)\s*[\u4e00-\u9fff]{2,3}(?:[，。、；（(]|$)|"
    r"\b(?:Mr|Ms|Mrs|Dr|Prof)\.?\s+[A-Z][a-z]*")
# A labelled field and its value ("Historian: Mother"), and people counted ("9位世袭统治者").
_FIELD = re.compile(r"([^:：\n]{1,24}?)\s*[:：]\s*\S")
_PEOPLE_COUNTED = re.compile(r"[\d一二三四五六七八九十两]+\s*[位名][\u4e00-\u9fff]{2}")
# Words that make a capitalised pair an organisation, place or heading rather than a person.
_NOT_PEOPLE = frozenset((
    "court", "hospital", "procuratorate", "street", "road", "city", "county", "district", "university", "company",
    "inc", "ltd", "bank", "department", "office", "center", "centre", "general", "record", "records", "judgment",
    "the", "this", "that", "article", "section", "chapter", "law", "act", "crime", "case", "criminal", "basic",
    "information", "history", "examination", "diagnosis", "plan", "report", "project", "service", "services",
    # a post, not its holder: "Owner: Site Manager, Tilbury Distribution Centre" names no one
    "manager", "managers", "director", "directors", "officer", "officers", "chief", "head", "president", "chair",
    "chairman", "chairwoman", "supervisor", "engineer", "coordinator", "lead", "executive", "secretary", "assistant",
    "administrator", "controller", "treasurer", "team", "site", "shift", "operations", "safety", "finance",
    "procurement", "committee", "board", "desk", "centre", "unit"))


# A question asking where: a place it is born, located or held in, or which town, city or country ("In which town
# was Barry Pepper born?", "黑龙江省博物馆位于哪个城市？"); not "the state where X is" of a description (the question
# asks something of that state: "When did the state where … become part of the United States?").
_PLACE_Q = re.compile(
    r"(?i)^\W*where\b|\b(?:in|at|from|to|near)\s+(?:which|what)\s+(?:town|city|country|state|county|province|village|"
    r"region|place|nation|island|continent|part)\b|^\W*(?:which|what)\s+(?:town|city|country|state|county|province|"
    r"village|region|nation|island|continent)\b|哪个(?:城市|国家|省份?|县|镇|村|地方|地区|城镇)|哪(?:里|儿)|何处|何地|在哪")
# Where a sentence puts something: a capitalised name after in / at / from / near / to ("born in Thunder Bay", "go to
# Assembly Point B"); a month after "in" is a date ("in April 1970").
_PLACE_GIVEN = re.compile(r"\b(?:in|at|from|near|of|to)\s+(?:the\s+)?([A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)*)")
# A place in brackets after a site's code or a local name: "HZ-1 (Hangzhou)", "Malmö (Sweden)".
_PLACE_AFTER = re.compile(r"\(([A-Z][a-zà-ÿ'’.-]+(?:\s+[A-Z][a-zà-ÿ'’.-]+)*)\)")
# The place a Chinese verb of going, attacking or siting takes ("讨伐百济", "位于太阳岛", "定在安吉"): its first two
# characters, enough to tell it from the question's words.
_PLACE_OBJECT = re.compile(r"(?:讨伐|攻打|进攻|攻占|出兵|迁都|迁往|前往|来到|抵达|到达|位于|定在|设在|坐落于)"
                           r"\s*([\u4e00-\u9fff]{2})")
# A question asking a country, and a nationality that answers it ("Norwegian", "Chinese", "Israeli").
_NATION_Q = re.compile(r"(?i)\b(?:country|nation|nationality|citizen(?:ship)?)\b|哪[个一]?国|国籍")
_DEMONYM = re.compile(r"\b(?:[A-Z][a-z]+(?:ian|ean|ican|ese|ish|ic|man|i)|French|Dutch|Swiss|Greek|Welsh|Thai)\b")
_PLACE_SUFFIX = re.compile(r"[\u4e00-\u9fff]{1,8}?(?:省|市|县|镇|乡|村|区|州|国|岛)")


def gives_place(sentence: str, question: str) -> bool:
    """``sentence`` names a place the question does not: a capitalised name after in / at / from / near / of ("the
    county of Cumbria"; not a month), or a Chinese proper noun (jieba's ns and its other name tags; or a name ending
    省 / 市 / 县 / 镇 / 国 …, or the place a verb of going or siting takes: "讨伐百济", 百济 being a kingdom jieba tags
    as a common noun); one in brackets ("SH-2 (Shanghai)"); asked a country, a nationality ("Norwegian")."""
    asked = question.lower()
    for m in (*_PLACE_GIVEN.finditer(sentence), *_PLACE_AFTER.finditer(sentence)):
        name = m.group(1).lower()
        if name.split()[0] not in MONTHS and name not in asked:
            return True
    if _NATION_Q.search(question) and any(m.group(0).lower() not in asked for m in _DEMONYM.finditer(sentence)):
        return True  # "What country was the author of Brand a citizen of?" — "the Norwegian playwright Henrik Ibsen"
    if re.search(r"[\u4e00-\u9fff]", sentence):
        places = chinese_names(sentence) + _PLACE_SUFFIX.findall(sentence) + _PLACE_OBJECT.findall(sentence)
        return any(p not in question for p in places)
    return False


# A question opening with a condition before what it asks ("When Kestrel pages the on-call engineer with a P1, how
# quickly do they have to acknowledge it?", "If the primary site fails, where …"): the clause does not say what kind
# of answer is asked.
_CONDITION = re.compile(r"(?i)^\W*(?:when|if|once|after|before|while)\b[^,，?？]*[,，]\s*(?=(?:how|what|who|whom|whose|"
                        r"which|where|when|why|is|are|was|were|do|does|did|can|could|should|must|will|would)\b)")


# A "when" clause after the question's own question word ("Where do staff gather when the fire alarm goes off?",
# "Who chaired the board when …"): a condition, not what is asked.
_LATE_WHEN = re.compile(r"(?i)^(?P<ask>\W*(?:who|whom|whose|where|what|which|how|why)\b[^?？]*?)\s+when\b.*$")


def expected_kind(question: str) -> AnswerKind:
    """The kind of answer ``question`` asks for."""
    question = _CONDITION.sub("", question)
    if (late := _LATE_WHEN.match(question)) and not _WHEN.search(late.group("ask")):
        question = late.group("ask")
    if _WHEN.search(question):
        return "date"
    if m := _COMPARE_Q.search(question):
        return _compared_kind(m.group("zh") or m.group("en").lower(), question)
    if _DURATION_Q.search(question):
        return "duration"
    if _SHARE_Q.search(question):
        return "share"
    if _MONEY_Q.search(question) and not _CHANGE_Q.search(question):
        return "money"
    if _HOW_MANY.search(question) and not (_WHICH_Q.search(question) and not _COUNT_ASKED.search(question)):
        return "number"
    if _NAMED_THING.search(question):
        return "thing"  # "收购的冷链物流公司叫什么名字": a company's name, not a person's
    if _WHO.search(question):
        return "person"
    if _PLACE_Q.search(question):
        return "place"
    return "thing"


def _compared_kind(word: str, question: str) -> AnswerKind:
    """What a comparison by ``word`` (更长, "earlier") measures: a date, a length of time, or a number."""
    if word in ("早", "晚", "earlier", "later", "sooner"):
        return "date"
    if word in ("长", "短", "久", "longer", "shorter") and _COMPARE_TIME.search(question):
        return "duration"
    return "number"


# A length of time given as a limit to act within: "may file an appeal within ten (10) days", "在接到判决书后十日内",
# "15个工作日以内" — the appeal window of every judgement, no sentence's length; a question asking such a limit
# says so ("within how many hours", "多长时间内", "期限", "deadline").
_LIMIT_BEFORE = re.compile(r"(?i)\bwithin\s+(?:a\s+period\s+of\s+|the\s+next\s+|the\s+)?$|不超过$|限期$")
_LIMIT_AFTER = re.compile(r"^\s*(?:\(\d{1,3}\)\s*)?(?:之内|以内|内)")
_LIMIT_Q = re.compile(r"(?i)\bwithin\b|deadline|\bhow (?:soon|quickly)\b|time limit|\bby when\b|\b(?:have|has) to\b|"
                      r"\bhow long (?:until|till|before|after)\b|\bhow long (?:will|would|does|do) it take\b|"
                      r"期限|时限|之内|以内|内[要须需应得]|多久内|时间内|天内|日内|"
                      r"(?:多久|多长时间)(?:之后|以后|后)?(?:能|会|才|可以|就|要)|过多久")
# a question asking how long until something happens ("押金多久能退", "多久能来人", "how long until the refund
# arrives") asks the time limit a document sets ("15个工作日内无息退还", "within 20 minutes")


def _is_time_limit(sentence: str, m: re.Match[str]) -> bool:
    return bool(_LIMIT_BEFORE.search(sentence[: m.start()]) or _LIMIT_AFTER.match(sentence[m.end():]))


def holds_kind(sentence: str, kind: AnswerKind, question: str = "") -> bool:
    """Does ``sentence`` hold an answer of ``kind`` beyond what the question itself says (a number the
    question also states is not an answer to it)?"""
    if kind == "thing":
        return True
    asked = question.lower()
    if kind == "money":  # a price is an amount of money, not any number ("三个版本" is not a price)
        return any(m.group(0).lower() not in asked for m in _MONEY.finditer(sentence))
    if kind == "share":  # a percentage or a fraction, not any number ("in 14 cities" is no share of sales)
        return any(m.group(0).lower() not in asked for m in _SHARE.finditer(sentence))
    if kind == "number":  # a count or a measure, not the digits of a date ("Admission Time: 26th, February")
        if _AGE_Q.search(question):  # an age, or a birth date: not a house number ("Address: 71, Knoxville street")
            return _AGE_GIVEN.search(sentence) is not None or gives_age(sentence, question)
        return _holds_count(_CALENDAR.sub(" ", sentence), asked) or gives_age(sentence, question)
    if kind == "date":
        dated = sentence if _BIRTH_Q.search(question) else _BIRTH_DATE.sub(" ", sentence)
        return any(m.group(0).lower() not in asked for m in _DATE.finditer(dated))
    if kind == "place":  # where: a place named, not a date of birth ("born April 4, 1970")
        return gives_place(sentence, question)
    if kind == "duration":  # a time limit ("within ten days", "十日内") answers only a question asking one
        limits = _LIMIT_Q.search(question) is None
        return any(m.group(0).lower() not in asked and not (limits and _is_time_limit(sentence, m))
                   for m in _DURATION.finditer(sentence))
    flat = re.sub(r"[\W_]+", " ", asked)
    if (field := _FIELD.match(sentence.strip())) and field.group(1).strip().lower() in asked:
        return True  # the field the question names, with its value: "Historian: Mother", "病史陈述者: 患者本人"
    if _PEOPLE_COUNTED.search(sentence):
        return True  # "由马来西亚的9位世袭统治者…组成": people, counted
    for m in _PERSON.finditer(sentence):
        name = m.group(0).strip(" ：:由是为")
        words = re.findall(r"[a-z]+", name.lower())
        after = re.match(r"[ \t]+([A-Za-z]+)", sentence[m.end():])  # "Tilbury Distribution Centre": a place
        if words and (any(w in _NOT_PEOPLE for w in words) or (after and after.group(1).lower() in _NOT_PEOPLE)):
            continue
        if re.sub(r"[\W_]+", " ", name.lower()).strip() not in flat:
            return True
    # jieba's tagging last: it costs about 2 ms a sentence, the patterns above next to nothing
    return has_han(sentence) and any(
        name not in question for name in chinese_people(sentence))


# Where a clause ends: Chinese commas and stops, semicolons, an English comma not inside a number ("1,000").
_CLAUSE_END = re.compile(r"[，；;。！？!?\n]|,(?!\d)")


# A question asking a share or a rate: then the base of a ratio ("占营业收入的2.4%") is what it asks about.
_RATIO_Q = re.compile(r"(?i)占|比例|比重|比率|率|百分|percent|\bshare\b|ratio|\brate\b|proportion|%")


def _only_a_base(clause: str, term: str, translations: Mapping[str, Iterable[str]] | None) -> bool:
    """Every mention of ``term`` (or a translation) in lower-cased ``clause`` is the base of a ratio — "占营业收入的
    2.4%", "2.4% of revenue", "a share of total revenue" — which gives another thing's share, not its value."""
    forms = [term, *(x.lower() for x in (translations or {}).get(term, ()))]
    mentions = [m for f in forms if f for m in re.finditer(re.escape(f), clause)]
    if not mentions:
        return False
    return all(re.search(r"占.{0,4}$", clause[:m.start()])
               or re.search(r"(?:%|percent|per cent|share|proportion)\s+of\s+(?:the\s+|its\s+|total\s+)*$",
                            clause[:m.start()])
               for m in mentions)


# A reference to a part of a document — an article, chapter or figure ("第六条", "第3章", "图3-1", "Article 397",
# "Table 2") — numbers it, and counts nothing.
_REFERENCE = re.compile(r"(?i)第\s*[\d一二三四五六七八九十百零两]+\s*[条章节款项篇部编]|"
                        r"(?:附表|附图|图|表)\s*[\d一二三四五六七八九十]+(?:[-.－]\d+)*|"
                        r"\b(?:article|art\.|section|chapter|figure|fig\.|table|appendix|clause)\s+\d+(?:[-.]\d+)*")


def _holds_count(undated: str, asked: str) -> bool:
    """Does ``undated`` (a sentence with its dates masked by ``_CALENDAR``) hold a number ``asked`` (the
    question, lower-cased) does not — a reference to an article or figure left out?
    Numbers are compared whole: "2.00元" is not the question's "2024"."""
    said = set(_NUMBER.findall(asked))
    text = _REFERENCE.sub(" ", undated)
    for m in _DIGIT.finditer(text):
        found = m.group(0)
        if not found[0].isdigit():
            if found not in asked:
                return True
        elif found not in said and not _is_year(found, text[m.end():]):
            return True
    return False


_COUNTED = re.compile(r"\s+([A-Za-z]+)")
# Words that may follow a year ("the end of 2020, an increase", "2020 and 2021", "2019 to 2021"): a number
# followed by another lower-case word counts it ("2000 people").
_AFTER_YEAR = frozenset(("and", "or", "to", "the", "a", "an", "was", "were", "is", "are", "in", "on", "at", "for",
                         "from", "with", "as", "when", "after", "before", "compared", "than", "by", "through",
                         "until", "while", "which", "that", "respectively"))


def _is_year(number: str, after: str) -> bool:
    """Is ``number`` (a whole number the sentence writes, ``after`` what follows it) a year — 1900 to 2099, not
    followed by what it would count ("2000 people")?"""
    if not re.fullmatch(YEAR_DIGITS, number):
        return False
    m = _COUNTED.match(after)
    return m is None or m.group(1).lower() in _AFTER_YEAR


# The date of a judgement itself — when it was given, not when anything it tells happened: "判决日期", "判决时间",
# "whose judgment time is earlier", "the date of the judgment". A judgement writes it on a line of its own at its
# end ("二〇二二年十月二十五日", "Dated this 30th day of April, 2023", "日期: 2023年8月10日"), which holds no word
# of the question; or in a sentence that names the judgement ("本判决书于2023年9月10日作出").
_JUDGMENT = r"(?:judge?ment|verdict|ruling|判决书?|宣判|裁判|裁定书?)"
_OWN_DATE_Q = re.compile(
    rf"(?i){_JUDGMENT}\s*(?:的)?\s*(?:date|time|day|日期|时间|日子)|"
    rf"(?:date|time|day) (?:of|for) (?:the |this |that |its |their |his |her )?{_JUDGMENT}|"
    rf"when (?:was|were|is|did) (?:the |this |that |its |their |his |her )?{_JUDGMENT}|"
    rf"{_JUDGMENT}(?:书)?(?:是|于)?(?:在)?(?:何时|什么时候|哪天|哪一天)|何时(?:作出)?(?:判决|宣判)")
_DATE_LABEL = re.compile(r"(?i)^(?:(?:date(?:d)?(?: of (?:the )?(?:judge?ment|verdict|ruling))?|judge?ment date|"
                         r"(?:判决|宣判|裁判)?日期|时间)\s*(?:this)?\s*[:：]?\s*)")
_DATE_ALONE = re.compile(
    r"(?i)(?:(?:19|20)\d{2}|[〇零一二三四五六七八九]{4})\s*年\s*(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*"
    r"(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*[日号]|"
    rf"\d{{1,2}}(?:st|nd|rd|th)?(?: day)?,?\s+(?:of\s+)?{_MONTH},?\s*(?:19|20)\d{{2}}|"
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s*(?:19|20)\d{{2}}|(?:19|20)\d{{2}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}")


def gives_age(sentence: str, question: str) -> bool:
    """Does ``sentence`` give a birth date, and ``question`` ask how old someone is (an age answers by a birth
    date as well: "who is older" of "Date of Birth: 11th August, 1964")?"""
    return bool(_AGE_Q.search(question)) and _BIRTH_DATE.search(sentence) is not None


def asks_document_date(question: str) -> bool:
    """Does ``question`` ask when a judgement was given (its own date, not an event's it tells)?"""
    return bool(_OWN_DATE_Q.search(question))


def is_date_line(line: str) -> bool:
    """Is ``line`` a date on its own, with at most a date label ("二〇二二年十月二十五日", "日期: 2023年8月10日",
    "Dated this 30th day of April, 2023", "**Date:** 1st March 2023") — a document's date as it signs off?"""
    text = re.sub(r"[*_`#]+", "", line).strip(" \t-—.。")
    text = _DATE_LABEL.sub("", text, count=1).strip()
    return bool(text) and _DATE_ALONE.fullmatch(text) is not None


def dates_its_document(sentence: str) -> bool:
    """Does ``sentence`` give the date of the judgement it is part of: a date line, or a sentence naming the
    judgement with a date that is no birth date ("本判决书于2023年9月10日作出", "Judgment issued on 20 March 2023")?"""
    if is_date_line(sentence):
        return True
    text = _BIRTH_DATE.sub(" ", sentence)
    return bool(re.search(_JUDGMENT, text, re.I)) and _DATE_ALONE.search(text) is not None and len(text) <= 160


def holds_kind_for(sentence: str, kind: AnswerKind, question: str, asked: Collection[str],
                   translations: Mapping[str, Iterable[str]] | None = None, *, judged_whole: bool = True) -> bool:
    """:func:`holds_kind` of the value the sentence gives *for* what is asked: a number, an amount or a share
    in a clause that holds one of the ``asked`` terms (or a translation), not only as a ratio's base unless the
    question asks a share. "研发投入0.93亿元，占营业收入的2.4%" gives 研发投入's amount and share, not
    营业收入's; "实现营业收入38.62亿元" gives it. A person, a date or a thing is judged on the whole sentence
    (a name is often the sentence's subject, a date its opening phrase: "Following … in 1946, South Africa
    refused …", "2006年8月，神圣十月第一次连载…"); so is a sentence holding none of ``asked``, unless
    ``judged_whole`` is False (the kinds gate: "an increase of 28.9% year on year" gives no share of online sales)."""
    if kind not in ("number", "money", "share") or not asked or gives_age(sentence, question):
        return holds_kind(sentence, kind, question)
    if kind == "number":  # a date is no count, also when a comma cuts it ("Admission Time: 26th, February"),
        sentence = _CALENDAR.sub(" ", sentence)  # masked once, before the clauses are cut
        if _COUNT_Q.search(question):  # and an amount of money counts no people ("donated $300,000")
            sentence = _AMOUNT.sub(" ", sentence)

        def gives(text: str) -> bool:
            return _holds_count(text, question.lower())
    else:
        def gives(text: str) -> bool:
            return holds_kind(text, kind, question)
    clauses = _clauses(sentence)
    ratio_asked = bool(_RATIO_Q.search(question))
    held = [(c, low, comma, [t for t in asked if _held(low, t, translations)]) for c, low, comma in clauses]
    if not any(terms for *_, terms in held):
        return judged_whole and gives(sentence)
    for k, (c, low, _, terms) in enumerate(held):
        if not any(ratio_asked or not _only_a_base(low, t, translations) for t in terms):
            continue
        if gives(c):
            return True
        # the value may follow its thing after a comma, in a clause naming nothing asked: "首批订单来自华东区教育
        # 行业客户，共1.2万台"
        if k + 1 < len(held) and held[k + 1][2] and not held[k + 1][3] and _CONTINUES.match(held[k + 1][0]) \
                and gives(held[k + 1][0]):
            return True
    return False


# A clause that goes on with the one before it, with no subject of its own: it opens with the value or a word
# leading to one ("共1.2万台", "每次扣款20元", "totalling $3 million") — not "新增代码行覆盖率还是不低于70%", which has
# its own.
_CONTINUES = re.compile(r"(?i)\s*(?:[\d$¥￥€£]|共|合计|总计|累计|约|近|逾|超过|达|为|是|计|均|各|每|按|"
                        r"total(?:l?ing)?\b|a total of\b|about\b|around\b|approximately\b|nearly\b|over\b|"
                        r"up to\b|of which\b|worth\b|amounting\b|reaching\b)")


def _clauses(sentence: str) -> list[tuple[str, str, bool]]:
    """``sentence``'s clauses (``_CLAUSE_END``), each lower-cased too and whether a comma opens it (it goes on with
    the clause before it, where a semicolon or a full stop starts another statement)."""
    out: list[tuple[str, str, bool]] = []
    start, comma = 0, False
    for m in [*_CLAUSE_END.finditer(sentence), None]:
        end = m.start() if m is not None else len(sentence)
        piece = sentence[start:end]
        if piece.strip():
            out.append((piece, piece.lower(), comma))
        if m is None:
            break
        start, comma = m.end(), m.group(0) in ("，", ",")
    return out


def says_more(sentence: str, question: str) -> bool:
    """Does ``sentence`` hold a word the question does not — an answer at all? "节目中第一次于公开场合演唱" says
    back "第一次在公开场合演唱是什么节目" without the programme."""
    asked = set(query_terms(question))
    return any(t not in asked for t in query_terms(sentence))


# A line that says its value is not settled yet: "具体日期由安环部另行通知", "launch date TBC", "to be confirmed".
_OPEN = re.compile(r"(?i)另行通知|另行确定|另行公布|待定|待确定|尚未确定|尚未公布|暂未确定|暂定|\b(?:TBC|TBD|TBA)\b|"
                   r"\bto be (?:announced|confirmed|decided|determined|agreed|scheduled)\b|"
                   r"\bnot yet (?:set|fixed|decided|confirmed|scheduled)\b")


def leaves_open(line: str) -> bool:
    """``line`` says what it gives is not settled ("定在9月中旬举行，具体日期另行通知"): no sure answer to when
    exactly, however much of the question it holds."""
    return _OPEN.search(line) is not None


# A question asking the day itself: "几月几号", "哪一天", "具体日期", "on what date", "which day".
_DAY_Q = re.compile(r"(?i)几月几[号日]|几号|哪一?天|具体(?:日期|时间|哪天)|什么日子|"
                    r"\b(?:exact|specific) (?:date|day)\b|\bwhat date\b|\bwhich day\b|\bon what day\b")


def open_day(lines: Sequence[str], question: str) -> bool:
    """``question`` asks the day something happens ("业委会下一次开会定在几月几号？") and every line of an answer says
    that day is not settled ("计划于6月中旬召开，具体时间、地点另行通知"): the documents do not give it."""
    quoted = [line for line in lines if line.strip()]
    return bool(quoted) and _DAY_Q.search(question) is not None and all(leaves_open(line) for line in quoted)


def only_repeats(lines: Sequence[str], question: str) -> bool:
    """Do an answer's ``lines`` (their ``[n]`` marks aside) hold nothing but the question's own words — "Chief
    Judge [1]" for "how many pets does the chief judge own?" — and so answer nothing? False for no lines."""
    return bool(lines) and not any(says_more(_MARK.sub(" ", line), question) for line in lines)


def quoted(answer: str) -> str:
    """What an answer quotes: its cited lines, without their citation markers."""
    return "\n".join(_MARK.sub("", line) for line in answer.splitlines() if _MARK.search(line))


def quotes_kind(lines: Iterable[str], kind: AnswerKind, question: str, asked: Collection[str] = (),
                translations: Mapping[str, Iterable[str]] | None = None) -> bool:
    """Does one of an answer's lines (its citation markers aside) hold an answer of ``kind`` — given ``asked`` (the
    question's terms beyond its subject), one *for* what is asked (:func:`holds_kind_for`): an amount or a share in
    a clause holding an asked term, so a line holding none of them gives none ("an increase of 28.9% year on year"
    is no share of online sales). A count asked outright is judged on the whole line when it holds no asked term:
    "育有3名子女" answers "有几个孩子" in other words; a measure ("体重是多少") is not: "以第一轮第7顺位被选中" gives a
    number, but of nothing asked — unless the line is in the other language, whose words for the measure a
    dictionary's glosses do not reliably give ("How large was the fine" of "…罚金，即人民币400万元")."""
    count = _COUNT_Q.search(question) is not None
    language = detect_language(question)
    return any(holds_kind_for(_MARK.sub(" ", line), kind, question, asked, translations,
                              judged_whole=kind == "number" and (count or detect_language(line) != language))
               for line in lines)


# A count asked outright ("how many employees", "几名", "多少家门店"): an amount of money (``_AMOUNT``, whole) is none.
_AMOUNT = re.compile(r"(?i)(?:[¥￥$€£]|\b(?:rmb|cny|usd|eur|gbp)\b)\s*\d[\d,.]*"
                     r"(?:\s*(?:million|billion|thousand|万|亿))?|"
                     r"\d[\d,.]*\s*(?:万|亿)?\s*(?:元|美元|欧元|英镑|yuan|rmb|cny|usd|eur|gbp|dollars?|euros?)")
_COUNT_Q = re.compile(r"(?i)how many|几|多少(?:个|名|人|家|台|次|位|项|件|条|份|座|辆|所|种|户|张|篇|本)")


# A question asking in which year (a date's year, no more), or when someone was born (a date of birth is given with
# its year: "born 4 April 1970", "1975年3月2日出生"; not a birthday, 生日): its answer writes one
_YEAR_Q = re.compile(r"(?i)\b(?:what|which)\s+year\b|哪一年|哪年|何年|什么年份|哪个年份|"
                     r"\bwhen\s+(?:was|were|is)\b[^?？]{1,80}?\bborn\b|\bdate of birth\b|\bbirth ?date\b|"
                     r"出生日期|什么时候出生|何时出生|哪天出生")


# A year as a date writes it: "1944年", "in 1944" — not a count ("三年") nor a number of another kind ("1,944").
_YEAR_WRITTEN = re.compile(r"(?<![\d,.])(?:1[0-9]|20)\d{2}(?=\s*年|\b)(?![,.]\d)")


def lists_years(line: str) -> bool:
    """``line`` writes three or more different years: a list of dates ("1903年12月28日、…1914年8月18日、…1922年
    12月1日…"), which holds the date asked among others and does not say which it is."""
    return len(set(_YEAR_WRITTEN.findall(line))) >= 3


def asks_year(question: str) -> bool:
    """Does ``question`` ask in which year something happened ("In what year was …", "哪一年"), or when someone
    was born?"""
    return _YEAR_Q.search(question) is not None


# A question asking when someone was born, and a line that gives a birth: its word, or the span a life is written
# as after a name ("阵内智则（1974年2月22日－）", "Eric Gordon (born December 25, 1988)").
_BIRTH_Q = re.compile(r"(?i)\bborn\b|\bbirth|出生|生于|何时生|哪年生|哪一年生")
_BIRTH = re.compile(r"(?i)\bborn\b|\bbirth|\bb\.\s*\d|出生|生于|诞生|出世|"
                    r"[（(]\s*(?:公元)?\d{3,4}年[^）)]{0,12}[－—–-]|"
                    # an English life span: "(23 April 1819 – 8 October 1888)"
                    r"\((?:c\.\s*)?(?:\d{1,2}\s+[a-z]+\s+|[a-z]+\s+\d{1,2},?\s+)?\d{3,4}\s*[–—-]")


def _writes_year_for(line: str, question: str) -> bool:
    """``line`` writes a year — when ``question`` asks when someone was born, a year of birth: a line giving another
    date ("2017年9月16日，李晨在女友36岁生日当天求婚") gives no date of birth."""
    if not ANY_YEAR.search(line):
        return False
    return not _BIRTH_Q.search(question) or _BIRTH.search(line) is not None


def lacks_required_kind(lines: Iterable[str], question: str, kinds: Collection[str], asked: Collection[str] = (),
                        translations: Mapping[str, Iterable[str]] | None = None) -> bool:
    """``question`` asks a kind in ``kinds`` (``answer.required_kinds``) and none of an answer's ``lines`` holds an
    answer of it for what is asked: "how much did the Company spend on research and development in fiscal 2021"
    answered by "In fiscal 2021, the Company achieved revenue of $1,057.2 million" gives an amount, but in no
    clause about what is asked. "year": a question asking in which year, and no line writes a year at all (asked
    when someone was born, no line writes one with a birth: :func:`_writes_year_for`). The
    graph refuses such an answer, and ``evals.fit kinds`` replays the same verdict (on the asked terms each report
    item records)."""
    if "year" in kinds and asks_year(question) and not any(_writes_year_for(_MARK.sub("", line), question)
                                                           for line in lines):
        # "In what year was Maia Hirasawa born?" answered by "She was born and raised in Sollentuna"; "李晨的出生日期"
        # by "2017年9月16日，李晨在女友生日当天求婚": a year, but no birth
        return True
    lines = [_CHAT_STAMP.sub(" ", line) for line in lines]  # "许慧敏（15:20）：" is when it was said, no answer to when
    asks = questions_asked(question)
    if len(asks) > 1:  # "What is the hotel allowance in Bergen, and on which days …": an answer to either part stands
        return all(lacks_required_kind(lines, ask, kinds, asked, translations) for ask in asks)
    kind = expected_kind(question)
    if kind == "number" and counts_by_listing(question):
        return False  # "几项辅助检查" is answered by the examinations listed, which no line counts
    # (not when the question also asks what: "研发岗配什么显示器？配几台？" is answered by the model's line)
    measure = counted_measure(question) if kind == "number" and "number" in kinds and not _WHAT_ZH.search(question) \
        else None
    quoted_lines = [_MARK.sub(" ", line) for line in lines if line.strip()]
    if measure and quoted_lines and all(has_han(line) for line in quoted_lines) and not any(
            gives_measure(line, measure) or _LABELLED_COUNT.search(line) for line in quoted_lines):
        return True  # "多少名员工" answered by "自有营运车辆2,350辆": a count, of something else
    if kind == "date" and any(m.group(0).lower() not in question.lower()
                              for line in lines for m in _PERIOD.finditer(_MARK.sub(" ", line))):
        return False  # "只有在春季化雪的时候", "compiled in 1513": a time, though no calendar date
    return kind in kinds and not quotes_kind(lines, kind, question, asked, translations)


# Where one question asks a second thing: ", and on which days …", "；哪一年…" — a clause of its own holding a question
# word ("A 和 B 分别…" and "the city where X was born" are one question).
_SECOND_ASK = re.compile(r"(?i)[,;]?\s+and\s+(?=(?:on|in|at|for|from|to|by|since)?\s*(?:what|which|when|who|whom|where|"
                         r"how)\b)|[,;]\s+(?=(?:what|which|when|who|whom|where|how)\b)|[，；;]\s*(?:以及|并且|另外|还有)?")
_ASK_WORD = re.compile(r"(?i)\b(?:what|which|when|who|whom|whose|where|how)\b|"
                       r"多少|几|哪|谁|什么|何时|何处|如何|怎样|是否")


def questions_asked(question: str) -> list[str]:
    """The questions ``question`` asks: its clauses that each hold a question word when there are two or more
    ("What is the hotel allowance per night in Bergen, and on which days can customers visit the test basin?"),
    else the question whole."""
    parts = [p.strip() for p in _SECOND_ASK.split(_CONDITION.sub("", question)) if p.strip()]
    asks = [p for p in parts if _ASK_WORD.search(p)]
    return asks if len(asks) > 1 and len(asks) == len(parts) else [question]


# A count the reader makes by listing what is counted: how many times, kinds or items, how many of what a person did
# or underwent ("how many auxiliary examinations did A. Davis undergo", "一共有几次犯罪行为", "诊断依据有几项") —
# answered by the things listed, which no line counts; unlike a figure the documents state ("how many employees did
# the Company have at the end of 2021", "门店数量", "64DD在日本总共卖出了多少台": 总共 and 一共 ask a listing only
# with 几).
_LISTED_COUNT_Q = re.compile(
    r"(?i)几(?:项|次|种|类|个方面|个阶段|个步骤|处|份)|多少(?:项|次|种|类|份|处)|(?:一共|总共|共有|共计)[^，。？?]{0,6}几|分别有|"
    r"\bin total\b|\baltogether\b|\bdistinct\b|\bdifferent\b|"
    r"how many (?:times|kinds|types|sorts|items|steps|stages|phases|ways)\b|"
    r"\b(?:undergo|underwent|undergone|commit(?:ted)?|engaged? in|receive[sd]?|perform(?:ed)?|suffer(?:ed)?)\b")


# What a count question counts: the noun after "how many" (its last word before the verb: "how many paying SaaS
# customers did …" → customers) or after 多少 / 几 and a measure word ("最多支持多少个租户" → 租户).
_COUNTED_EN = re.compile(r"(?i)\bhow many ((?:[a-z][\w'-]*\s+){0,3}?[a-z][\w'-]*?)(?=\s+(?:did|does|do|were|was|are|is|"
                         r"have|has|had|can|could|will|would|should|must|may|might|in|of|for|at|on|per|to|from|"
                         r"with|by|during|under|across)\b|\s*[?,.]|$)")
_COUNTED_ZH = re.compile(r"(?:多少|几)[个名家台位项次种件条份座辆所户张篇本人间]?(?P<rest>[\u4e00-\u9fff]{2,})")


def counted_noun(question: str) -> str | None:
    """The word naming what ``question`` counts ("employees", "节点"), lower-cased; None when it names none
    ("首批订单有多少台", "营业收入是多少")."""
    if m := _COUNTED_EN.search(question):
        return m.group(1).split()[-1].lower()
    if m := _COUNTED_ZH.search(question):
        words = segment_words(m.group("rest"))
        if words and len(words[0]) >= 2:
            return words[0]
    return None


# The measure word a Chinese count question gives ("多少家门店", "几名员工"): an answer counts in it ("门店总数达到
# 2,186家"), not in another ("员工总数11,350人" beside 每家门店). People are counted in 名 or 人 alike; 个 counts
# anything.
_MEASURE_Q = re.compile(r"(?:多少|几)(名(?!额|字)|家(?!庭|属|长)|台(?!风)|位(?!置)|项(?!目)|次|种|件|条(?!件|款)|"
                        r"份(?!额)|座(?!位)|辆|所(?!得|有)|户|张|篇|本(?!科|金)|人(?!口|民|次|员)|间)")
_PEOPLE_MEASURES = "名人"  # 位 counts people and digits alike ("多少位员工", "密码至少多少位"): only itself


# a count under its label, with no measure word: "员工人数: 11,350", "门店总数：2186"
_LABELLED_COUNT = re.compile(r"[:：]\s*\d[\d,，.]*\s*(?:$|[|·;；，,。])")


_WHAT_ZH = re.compile(r"什么|哪")


def counted_measure(question: str) -> str | None:
    """The measure word of a Chinese count question (家 of "一共有多少家门店"), or None."""
    m = _MEASURE_Q.search(question)
    return m.group(1) if m else None


def gives_measure(sentence: str, measure: str) -> bool:
    """Does ``sentence`` count something in ``measure`` ("2,186家", "三十六家"; 名 and 人 alike)?"""
    units = _PEOPLE_MEASURES if measure in _PEOPLE_MEASURES else measure
    return re.search(rf"(?<![\d,，.{_CN_COUNT}百千万])(?:\d[\d,，.]*|[{_CN_COUNT}百千万]+)\s*(?:万|亿|千|百)?\s*"
                     rf"(?:余|多|来)?\s*[{units}]", sentence) is not None


# A line that states an aim, a plan or a forecast ("公司的经营目标是全年组件出货量达到15GW以上", "we expect revenue to
# reach…"), or what a party demands ("要求…赔偿经济损失1.2亿元"): no answer to what was done or decided, unless the
# question asks for one (计划, 打算, target, expect).
_TARGET = re.compile(r"(?i)(?:经营|发展|年度|战略|销售|业绩|增长|中长期|阶段性?)目标|目标(?:是|为|[:：]|值|定为)|"
                     r"计划(?:于|在|将|到|今年|明年|年内)|预计(?!负债)|预期|预测|力争|争取|规划|展望|拟于|拟将|将力争|"
                     r"要求[^，。；]{0,30}赔偿|诉请|索赔|"
                     r"\b(?:target(?:s|ed)?|plan(?:s|ned)? to|expects?|expected to|aims? to|forecasts?|goal|guidance|"
                     r"seeks?|demand(?:s|ed)?)\b")
_TARGET_Q = re.compile(r"(?i)目标|计划|预计|预期|预测|打算|规划|展望|将要|要求|诉请|索赔|"
                       r"\b(?:target|plan|planned|plans|expect|expected|aim|forecast|goal|guidance|will|going to|"
                       r"claims?|claimed|seek|sought|demand)\b")


_CLAUSE_END = re.compile(r"[，,；;。！？!?]")
_YEAR_ONLY = re.compile(rf"(?<!\d){YEAR_DIGITS}(?!\d)\s*(?:年度?|财年)?")


def states_target(sentence: str) -> bool:
    """Does ``sentence`` state an aim, a plan, a forecast or a demand rather than what was done (``_TARGET``), in
    a clause giving a figure or the clause leading to it? "经营目标是全年组件出货量达到15GW以上" does; "首批订单…，共
    1.2万台，计划在发布后两周内完成交付" gives its count as done, and plans only the delivery. A line giving no
    figure is not judged: "whose character was originally planned to play a major part" tells a story."""
    clauses = [c for c in _CLAUSE_END.split(sentence) if c.strip()]
    valued = [i for i, c in enumerate(clauses) if re.search(r"\d", _YEAR_ONLY.sub(" ", c))]  # a year is no figure
    return any(_TARGET.search(clauses[j]) for i in valued for j in (i - 1, i) if j >= 0)


def asks_target(question: str) -> bool:
    """Does ``question`` ask for an aim, a plan, a forecast or a demand ("物业打算什么时候开始弄？")?"""
    return _TARGET_Q.search(question) is not None


def counts_by_listing(question: str) -> bool:
    """Does ``question`` ask a count the reader makes by listing what is counted (``_LISTED_COUNT_Q``)?"""
    return bool(_LISTED_COUNT_Q.search(question))


def ask_weights(weights: Mapping[str, float], subject: Iterable[str]) -> dict[str, float]:
    """The question's term weights without the terms that name its subject, the kind of document it is
    ("judgment", "records", "判决书") or a withheld name's placeholder (柳某某's 某某): what it asks of it."""
    naming = set(subject)
    return {t: w for t, w in weights.items()
            if t not in naming and not t.isdigit() and not is_document_kind(t) and not is_placeholder(t)}


def salient(asked: Mapping[str, float], share: float) -> list[str]:
    """The asked terms weighing at least ``share`` of the heaviest one: what a clause must hold to give the value
    *for* what is asked. "the Company" is written in every clause of a company's report (its weight is small), so
    "the Company achieved revenue of $1,057.2 million" gives no amount for "how much did the Company spend on
    research and development"."""
    top = max(asked.values(), default=0.0)
    return [t for t, w in asked.items() if w >= share * top]


_ASKING_ZH = re.compile(r"什么|哪|谁|多少|几|吗|如何|怎么|怎样|为何|为什么|是否")


def subject_qualifiers(question: str, subject: Collection[str]) -> set[str]:
    """The words a Chinese question writes before its subject's name, in the phrase that leads to it: they say
    which subject is meant ("NBA球员埃里克·戈登", "重庆武隆的芙蓉洞", "2021年丰穗农业"), not what is asked of it.
    Nothing when the question asks before it names its subject, or writes no Chinese."""
    low = question.lower()
    if not has_han(low):
        return set()
    found = [i for t in subject if t and (i := low.find(t.lower())) >= 0]
    if not found:
        return set()
    start = min(found)
    prefix, rest = low[:start], low[start:]
    if not prefix or _ASKING_ZH.search(prefix):
        return set()
    lead = re.split(r"[，,；;：:。]", prefix)[-1]  # "根据…年报，" closes a phrase of its own
    return {t for t in query_terms(lead) if t not in rest}


def subject_naming(question: str, subject: Collection[str]) -> set[str]:
    """The words ``question`` names its subject by besides its name: its role (:func:`role_words`) and, in Chinese,
    what it writes before the name (:func:`subject_qualifiers`)."""
    names = {t.lower() for t in subject}
    return role_words(question, names) | subject_qualifiers(question, names)


def gate_terms(question: str, asked: Mapping[str, float], subject: Collection[str], share: float) -> list[str]:
    """What a line must hold to give the value *for* what is asked (the kinds gate, ``answer.required_kinds``): the
    salient asked terms (:func:`salient`) without the words that name the subject by its role or its place before
    its name (:func:`role_words`, :func:`subject_qualifiers`): "NBA球员埃里克·戈登的体重是多少" asks 体重, and a line
    giving a draft pick "in the NBA" gives no weight. When nothing would be left, the salient terms."""
    drop = subject_naming(question, subject)
    terms = salient({t: w for t, w in asked.items() if t not in drop}, share)
    return terms or salient(asked, share)


# What may stand right before a role word that names a subject: an article or preposition ("the defendants
# Q. Ruiz", "of patients J. Rodriguez") or the question's start — not a noun, nor what comes before a verb
# ("company acquired Acme", "refuse to surrender Namibia", "did … visit Paris").
_ROLE_LEAD = re.compile(r"(?:^|\b(?:the|a|an|of|for|by|with|and|is|was|are|were|did|does|do|has|had)\s+)$")
_VERB_FORM = re.compile(r"(?:ing|ed)$")  # "by acquiring Acme", "the acquired Acme": a verb's form is no role
# A Chinese role names a person or a party (被告人, 患者, 申请人, 工程师, 法官, 原告): not 病史 before a word that
# happens to be a name ("病史陈述者").
_ROLE_END_ZH = ("人", "者", "员", "师", "官", "告", "方")
_INITIALS_END = re.compile(r"(?:(?<![a-z])[a-z]\.\s*)+$")  # "Q. ", and "M. " after 被告


def role_words(question: str, names: Collection[str]) -> set[str]:
    """The words ``question`` names a subject by its role in, written right before its name ("what crimes did the
    defendants Q. Ruiz and M. Ward commit" → defendants; "patients J. Rodriguez" → patients; "被告人张某某" → 被告人):
    they name who the question is about, as the name does, and are not asked of them. A word set off by a comma
    is not one ("whose blood pressure is higher, L. Rogers or M. Young" asks "higher"). ``names``: the question's
    words (lower-cased) that name its subjects; an English name counts where the question capitalises it."""
    low = question.lower()
    words = [w for w in names if w]
    out: set[str] = set()
    for name in words:
        for m in re.finditer(re.escape(name), low):
            prefix = low[:m.start()]
            while True:  # the rest of the name before this word ("granville general" of "… hospital"), initials
                stripped = _INITIALS_END.sub("", prefix.rstrip(" -"))
                stripped = next((stripped[:-len(w)] for w in words if w != name and stripped.endswith(w)), stripped)
                if stripped == prefix:
                    break
                prefix = stripped
            before = prefix.rstrip()
            if before and has_han(before[-1]):  # a Chinese role, before a name in either script ("被告M. Bennett")
                prefix = before
                tail = [t for t in query_terms(prefix[-6:]) if prefix.endswith(t)]
                if tail and tail[-1] not in words and tail[-1].endswith(_ROLE_END_ZH):
                    out.add(tail[-1])
            elif name.isascii() or before:  # an English role, before a name in either script ("patient 彭某某")
                if name.isascii() and not question[m.start()].isupper():
                    continue  # a name is written as one ("Q. Ruiz"); "the general health" names no one
                word = re.search(r"([a-z][a-z-]+)\s*$", prefix)
                if word and word.group(1) not in words and names_a_thing(word.group(1)) \
                        and not _VERB_FORM.search(word.group(1)) \
                        and _ROLE_LEAD.search(prefix[:word.start(1)]):
                    out.add(word.group(1))
    return {w for w in out if not is_document_kind(w)}


_SEVERAL = re.compile(r"(?i)分别|各自|各是|各为|各有|哪些|哪几|\brespectively\b|\bboth\b|\beach\b|\blist\b|"
                      r"\bwhat (?:are|were) the\b|[？?].+[？?]|"
                      # two questions in one: "How long is the warranty, and how many hours does its battery last?"
                      r"\band (?:how|what|which|who|whom|when|where|why)\b")


def asks_several(question: str) -> bool:
    """Does ``question`` ask for more than one value ("分别是多少", "哪些", "等级是什么？得分多少？", "what were
    the …", "…, and how many hours …")? A question asking one value is answered by one line of the kind asked: a
    second such value from another passage is a look-alike (another meal allowance beside the hotel limit), not more
    of the answer."""
    return _SEVERAL.search(question.strip()) is not None


_SUMMARY = re.compile(r"(?i)总结|概括|概述|归纳|梳理|\bsummari[sz]e|\boverview\b|\boutline (?:the|all)\b")


def asks_for_summary(question: str) -> bool:
    """Does ``question`` ask what the documents say of its subject as a whole ("总结公司2021年的诉讼和监管事项",
    "summarise the case") rather than one fact? Its words are headings to gather under, not a fact to find."""
    return _SUMMARY.search(question) is not None


def summary_aspect(question: str) -> str:
    """What a summary question asks to be summed up: its words after the summary verb ("summarize *the facts of
    S. Taylor's crime*", "总结*唐某某的犯罪证据*"); empty when it asks for no summary. The words before it say where
    to look ("according to the judgment of …"), not what."""
    m = _SUMMARY.search(question)
    return question[m.end():].strip() if m else ""


# a Latin word as a question writes it, accented letters, digits and hyphens within it ("Janáček", "Falcon-03")
_LATIN_WORD = re.compile(rf"[A-Za-z{ACCENTED}][A-Za-z0-9{ACCENTED}-]*")


def title_case_names(question: str) -> set[str]:
    """The words ``question`` writes as names in title case past its first word ("Northbeam" of "the hosting
    agreement with Northbeam"), lower-cased: who or what a document is about. Not a word in capitals only ("RPO",
    "CEO"): an abbreviation is as often what is asked."""
    words = _LATIN_WORD.findall(question)[1:]
    return {w.lower() for w in words if w[0].isupper() and not w.isupper()}


def people_named(question: str, terms: Collection[str]) -> set[str]:
    """The question's terms that name the people it asks about by a withheld name and by their role before it
    ("罗某的辩护人彭某某的生日" → 罗某, 辩护人 and its pieces 辩护, 护人): who it is about, as a document's name is,
    not what it asks of them (生日)."""
    names = withheld_names(question)
    if not names:
        return set()
    roles = role_words(question, names)
    return {t for t in terms if t in names or t in roles or any(t != r and t in r for r in roles)}


def capitalised_words(question: str, *, with_first: bool = False) -> set[str]:
    """The Latin words ``question`` writes capitalised past its first word (lower-cased, a hyphenated one with
    its parts): the names it gives ("Halvorsen Electronics Corp.", "RPO"), not "According" or "What" opening it;
    ``with_first``: the first word too, when capitalised (it may be a name as well)."""
    words = _LATIN_WORD.findall(question)  # "Janáček" whole
    return {p.lower() for w in (words if with_first else words[1:]) if w[0].isupper() for p in (w, *w.split("-"))}


# A run of capitalised words the question writes as one name: separated by a space only (a comma, a quote or a
# lower-case word ends it), each word's possessive dropped ("Ed Sheeran's" → "Ed Sheeran").
_NAME_WORD = re.compile(rf"[A-Za-z{ACCENTED}][A-Za-z0-9{ACCENTED}'’.&-]*")


# A name given in both languages: "Jiamu Software (嘉沐软件)", "恒屿冷链 (Hengyu Cold Chain)" — one is the other's gloss
_GLOSS_AFTER = re.compile(r"((?:[A-Z][\w'’&.-]*\s+){0,5}[A-Z][\w'’&.-]*)['’]?s?\s*[（(]\s*[\u4e00-\u9fff]"
                          r"[^()（）]{1,30}[)）]")
_GLOSS_INSIDE = re.compile(r"[\u4e00-\u9fff]{2,}\s*[（(]\s*([A-Za-z][A-Za-z0-9\s'’&.-]{1,60})[)）]")


def glossed_words(question: str) -> set[str]:
    """The Latin words of a name the question also gives in Chinese, beside it in brackets ("jiamu", "software" of
    "Jiamu Software (嘉沐软件)"), lower-cased: they name the subject the Chinese name names, and a Chinese document
    need not write them."""
    spans = [*(m.group(1) for m in _GLOSS_AFTER.finditer(question)),
             *(m.group(1) for m in _GLOSS_INSIDE.finditer(question))]
    return {w.lower().strip("'’.") for span in spans for w in re.findall(r"[A-Za-z][\w'’&.-]*", span)}


_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "dr", "prof", "st", "mt", "ft", "co", "corp", "inc", "ltd", "jr", "sr",
                            "no", "vol", "dept", "univ", "bros"})


def name_phrases(question: str) -> list[str]:
    """The names of two or more capitalised words ``question`` writes ("Arctic Monkeys", "Thinking Out Loud"), as
    written, in order: a name a document about it writes whole, where its words alone ("Arctic Ocean", "12
    Monkeys") may be written of anything. The opening word is one of a name unless it is a question or function
    word ("Humboldt Peak, in the state …", not "Which Arctic …"). A word in capitals only ("RPO") is a name of its
    own, not part of one."""
    runs: list[list[str]] = []
    going = False  # the last run may take the next word
    last_end = -1
    for i, m in enumerate(_NAME_WORD.finditer(question)):
        word = re.sub(r"['’]s?$", "", m.group(0)).rstrip(".")
        opening = i == 0 and (word.lower() in stopwords() or word.lower() in english_stopwords())
        if opening or not word[:1].isupper() or (word.isupper() and len(word) > 1):
            going = False
        else:
            if going and question[last_end:m.start()] == " ":
                runs[-1].append(word)
            else:
                runs.append([word])
            # a possessive ends the name, and so does a full stop after a word that is no initial or abbreviation
            # ("We're on Ledger Team. If you miss …" names Ledger Team, not "Ledger Team If")
            going = word == m.group(0).rstrip(".") and not (m.group(0).endswith(".") and len(word) > 1
                                                             and word.lower() not in _ABBREVIATIONS)
        last_end = m.end()
    return list(dict.fromkeys(" ".join(run) for run in runs if len(run) >= 2))


def folded(text: str) -> str:
    """``text`` lower-cased, accents dropped, every run of characters that is no letter or digit one space: how a
    name is compared with a passage ("Hornets’ Nest" and "Hornets' Nest", "Akinoshū" and "Akinoshu")."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return " ".join(re.split(r"[\W_]+", plain)).strip()


def asked_text(question: str, subject: Iterable[str]) -> str:
    """``question`` with the words that name its subject (and the kind of document) taken out: what it asks
    of that document, as text to search inside it ("how many distinct criminal activities did … engage in")."""
    out = question
    for term in sorted(set(subject), key=len, reverse=True):
        if term.isascii():
            out = re.sub(rf"(?i)(?<![a-z0-9]){re.escape(term)}(?![a-z0-9])", " ", out)
        else:
            out = out.replace(term, " ")
    for word in re.findall(r"[A-Za-z]+", out):
        if is_document_kind(word.lower()):
            out = re.sub(rf"\b{word}\b", " ", out)
    return re.sub(r"\s+", " ", re.sub(r"(?:\s*[,，、]\s*){2,}", ", ", out)).strip(" ,，、") or question


def held_share(text: str, weights: Mapping[str, float], translations: Mapping[str, Iterable[str]] | None = None,
               ) -> float:
    """Share of ``weights``' mass whose term (or one of its translations) ``text`` holds; 1.0 when there is
    nothing to hold."""
    total = sum(weights.values())
    if total <= 0:
        return 1.0
    low = text.lower()
    return sum(w for t, w in weights.items() if _held(low, t, translations)) / total


def _held(low: str, term: str, translations: Mapping[str, Iterable[str]] | None) -> bool:
    """Lower-cased ``low`` holds ``term`` or one of its translations."""
    return holds(low, term) or any(holds(low, x.lower()) for x in (translations or {}).get(term, ()))


def missing_terms(text: str, weights: Mapping[str, float],
                  translations: Mapping[str, Iterable[str]] | None = None) -> list[str]:
    """The asked terms ``text`` holds in no form, heaviest first; a term inside a longer missing one (jieba's
    "服务" and "务器" of "服务器") is that one, said once."""
    low = text.lower()
    missing = [t for t, _ in sorted(weights.items(), key=lambda x: -x[1]) if not _held(low, t, translations)]
    return whole_terms(missing)


# Between two terms the question writes as one phrase: nothing (研发投入), or a blank or hyphen ("GPU 服务器").
_PHRASE_GAP = re.compile(r"[\s-]?")
# Where a statement ends: a sentence's stop, a semicolon, a line break (not a comma: "辩护人：张某，某律师事务所律师"
# states the defender and the lawyer in one).
_STATEMENT_END = re.compile(r"[。！？!?；;\n]|\.(?:\s|$)")


# How often, which a document writes in many ways ("每月", "/月", "monthly", "per month", "a month"): no word of a
# phrase ("每个席位每月多少钱" asks a price per seat, not a thing called 席位每月).
_RATE_WORD = re.compile(r"(?i)^(?:每.+|(?:hourly|daily|weekly|monthly|quarterly|yearly|annually|annual|per|each))$")


def written_together(question: str, terms: Sequence[str]) -> list[list[str]]:
    """The groups of two or more of ``terms`` (lower-cased) that a Chinese ``question`` writes side by side as one
    phrase ("研发" and "投入" of "研发投入", "gpu" and "服务器" of "GPU服务器"), each in the question's order: a phrase
    names one thing, and a document that writes its words only apart ("…的研发、生产", "项目于2023年投入使用") does
    not write that thing. A rate word (每月) is in no phrase."""
    low = question.lower()
    spans = sorted((at, -len(t), t) for t in dict.fromkeys(terms)
                   if t and not _RATE_WORD.match(t)
                   and (at := low.find(t)) >= 0 and len(question[at:at + len(t)]) == len(t))
    groups: list[tuple[int, list[str]]] = []  # (where the phrase ends so far, its terms)
    for start, minus, term in spans:
        end = start - minus
        if groups and (start < groups[-1][0] or _PHRASE_GAP.fullmatch(low[groups[-1][0]:start])):
            # jieba's pieces overlap (服务, 服务器, 务器): one phrase, ending where its longest piece ends
            groups[-1] = (max(groups[-1][0], end), [*groups[-1][1], term])
        else:
            groups.append((end, [term]))
    # a phrase of one word and its pieces (负债率, 负债) is that word: what a document must write is the word. A
    # Chinese phrase only: English words side by side are as often a noun and its verb ("the hosting provider
    # guarantee"), and English documents say the same thing in other word orders ("availability per month")
    return [g for _, g in groups if len(whole_terms(g)) >= 2
            and any(has_han(t) for t in g)]


def written_as_one(text: str, group: Sequence[str],
                   translations: Mapping[str, Iterable[str]] | None = None) -> bool:
    """Does lower-cased ``text`` write every term of ``group`` (or a translation) in one statement — the phrase
    itself, or its words within one sentence ("研发费用投入", "the allowance for a home office")?"""
    return any(all(_held(piece, t, translations) for t in group)
               for piece in _STATEMENT_END.split(text) if piece.strip())


def as_written(question: str, terms: Sequence[str]) -> list[str]:
    """``terms`` (lower-cased) as the question writes them ("GPU", not "gpu"), terms the question writes side by
    side joined into the phrase they make ("研发" and "投入" → "研发投入"); in the order of ``terms``. A term the
    question does not write stays as it is."""
    low = question.lower()
    spans: list[list[int]] = []  # [start, end, order of the first term in it]
    loose: list[tuple[int, str]] = []
    for order, term in enumerate(terms):
        at = low.find(term)
        if at < 0 or len(question[at:at + len(term)]) != len(term):
            loose.append((order, term))
        else:
            spans.append([at, at + len(term), order])
    spans.sort()
    merged: list[list[int]] = []
    for start, end, order in spans:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
            merged[-1][2] = min(merged[-1][2], order)
        else:
            merged.append([start, end, order])
    found = [(order, question[start:end]) for start, end, order in merged]
    return [text for _, text in sorted(found + loose)]
