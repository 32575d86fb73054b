"""A generated corpus for the scale benchmark: Chinese and English business documents, deterministic.

Document ``i`` is built from its own seeded RNG, so the corpus for N nodes is always a prefix of
the corpus for a larger N (the 5k, 20k and 50k steps add documents, and cached embeddings are
reused across runs). Every document has exactly ``nodes_per_doc`` paragraphs (the content nodes
that are embedded and searched), grouped in 6–12 sections. Even documents are Chinese, odd ones
English. Paragraphs are one or two sentences filled from templates and word lists: project
updates, incidents, budgets, meetings, purchase orders… About 4 % of the paragraphs are
fact-shaped distractors (a contract number, a code name and the person in charge), and the
planted facts that the benchmark asks about use the very same templates with reserved codes and
names, so finding them needs the exact identifier, not just the topic. Planted facts live in the
first 50 documents (the first 5,000 nodes at 100 nodes a document), so every scale step can
answer them.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from dropqa.evals.suite import EvalItem, Evidence
from dropqa.ingestion.document import ParsedDocument, paragraph, section

FACT_DOCS = 50  # planted facts go into documents 0..FACT_DOCS-1

# ---------------------------------------------------------------- word lists (fictional)

ZH = {
    "org": ["星河科技", "云杉数据", "北辰智能", "青禾医疗", "海澜物流", "远山能源", "明湖教育", "松岩制造"],
    "dept": ["研发中心", "财务部", "人力资源部", "市场部", "运维组", "法务部", "采购部", "客服中心", "数据平台组",
             "安全合规部", "供应链管理部", "产品设计部"],
    "project": ["星图计划", "北极光项目", "天枢平台", "鲲鹏迁移", "灯塔工程", "晨曦系统", "长风计划", "远航项目",
                "云梯改造", "磐石数据库"],
    "phase": ["需求评审", "原型验证", "灰度发布", "压力测试", "上线验收", "数据迁移", "架构评审", "安全加固"],
    "metric": ["平均响应时间", "故障恢复时间", "客户满意度", "库存周转天数", "订单准时率", "单位能耗", "缺陷逃逸率",
               "服务可用性", "工单平均处理时长", "新员工留存率"],
    "city": ["杭州", "成都", "深圳", "武汉", "西安", "苏州", "青岛", "长沙", "合肥", "南京", "厦门", "昆明"],
    "surname": list("王李张刘陈杨赵黄周吴徐孙马朱胡郭何林罗高"),
    "given": ["立新", "晓雯", "志强", "海燕", "建国", "思远", "雨桐", "子涵", "文博", "静怡", "浩然", "佳琪",
              "明轩", "若曦", "国栋", "雅婷"],
    "device": ["边缘网关", "存储阵列", "工业相机", "温控模块", "扫码终端", "巡检机器人", "无线接入点", "电池包"],
    "risk": ["单点故障", "数据泄露", "供应商延期交付", "成本超支", "关键人员流失", "合规审查不通过"],
    "problem": ["接口文档与实现不一致", "测试环境资源不足", "需求频繁变更", "跨部门协作流程过长",
                "历史数据质量较差", "第三方组件存在已知漏洞"],
    "suggest": ["先冻结范围再排期", "引入自动化回归测试", "每周召开一次联合评审", "把验收标准写进合同附件",
                "增加一名专职测试", "分两批完成切换"],
    "event": ["季度培训", "客户开放日", "技术沙龙", "安全演练", "新员工入职营", "供应商大会"],
    "role": ["工程师", "客户代表", "新员工", "合作伙伴", "产品经理", "一线主管"],
    "policy": ["新版差旅报销标准", "远程办公申请流程", "代码提交前的安全扫描", "固定资产盘点制度",
               "外包人员门禁管理", "季度预算调整规则"],
    "agreement": ["战略合作协议", "技术服务合同", "框架采购协议", "联合研发备忘录"],
    "channel": ["线上工单", "电话热线", "渠道伙伴", "官网表单", "邮件"],
    "item": ["工单", "变更请求", "采购申请", "安全告警", "客户投诉"],
    "section": ["项目进展", "风险与问题", "下阶段计划", "资源与预算", "客户反馈", "质量与测试", "人员与培训",
                "采购与合同", "运维与故障", "制度与流程", "会议纪要", "数据与指标"],
    "kind": ["周报", "会议纪要", "项目复盘", "运营月报", "技术方案", "部门简报"],
}

EN = {
    "org": ["Northwind", "Bluewater Labs", "Halvorsen Marine", "Crescent Health", "Ironbridge Logistics",
            "Silverline Energy", "Maplewood Learning", "Granite Works"],
    "dept": ["platform team", "finance office", "people team", "marketing group", "operations crew",
             "legal department", "procurement office", "support centre", "data platform group",
             "security and compliance team", "supply chain office", "design studio"],
    "project": ["Project Lighthouse", "the Atlas migration", "the Harbor platform", "Project Meridian",
                "the Summit rollout", "Project Tidewater", "the Beacon redesign", "Project Keystone",
                "the Orchard data lake", "Project Compass"],
    "phase": ["requirements review", "prototype validation", "staged rollout", "load testing",
              "acceptance testing", "data migration", "architecture review", "security hardening"],
    "metric": ["median response time", "mean time to recovery", "customer satisfaction", "days of inventory",
               "on-time delivery rate", "energy use per unit", "defect escape rate", "service availability",
               "average ticket handling time", "new-hire retention"],
    "city": ["Oslo", "Lisbon", "Rotterdam", "Glasgow", "Tallinn", "Gdansk", "Bergen", "Porto", "Cork",
             "Aarhus", "Valencia", "Trieste"],
    "first": ["Maria", "James", "Ingrid", "Tomasz", "Aisha", "Lukas", "Sofia", "Daniel", "Priya", "Erik",
              "Chloe", "Mateo", "Hannah", "Owen", "Leila", "Noah"],
    "last": ["Lindqvist", "Okafor", "Brennan", "Kowalski", "Haddad", "Moreau", "Santos", "Fischer", "Novak",
             "Andersen", "Whitfield", "Ramires", "Tanaka", "Ortiz"],
    "device": ["edge gateway", "storage array", "inspection camera", "thermal controller", "handheld scanner",
               "survey drone", "wireless access point", "battery pack"],
    "risk": ["a single point of failure", "a data leak", "late supplier deliveries", "cost overruns",
             "losing key staff", "a failed compliance audit"],
    "problem": ["the API documentation no longer matches the code", "the test environment is undersized",
                "requirements keep changing", "hand-offs between departments take too long",
                "the legacy data is of poor quality", "a third-party component has a known vulnerability"],
    "suggest": ["freeze the scope before planning", "add automated regression tests",
                "hold a joint review every week", "put the acceptance criteria into the contract annex",
                "assign a dedicated tester", "switch over in two batches"],
    "event": ["quarterly training", "customer open day", "tech talk", "incident drill", "onboarding week",
              "supplier summit"],
    "role": ["engineers", "customer representatives", "new hires", "partners", "product managers",
             "team leads"],
    "policy": ["the new travel expense limits", "the remote work request process",
               "security scanning before every merge", "the fixed asset inventory rules",
               "badge access for contractors", "the quarterly budget adjustment rules"],
    "agreement": ["a strategic partnership agreement", "a technical services contract",
                  "a framework purchasing agreement", "a joint research memorandum"],
    "channel": ["the web portal", "the phone hotline", "channel partners", "the contact form", "email"],
    "item": ["tickets", "change requests", "purchase requests", "security alerts", "customer complaints"],
    "section": ["Progress", "Risks and issues", "Next steps", "Budget and resources", "Customer feedback",
                "Quality and testing", "People and training", "Purchasing and contracts",
                "Operations and incidents", "Policies", "Meeting notes", "Metrics"],
    "kind": ["weekly_report", "meeting_minutes", "project_review", "monthly_ops_report", "design_note",
             "team_brief"],
    "month": ["January", "February", "March", "April", "May", "June", "July", "August", "September",
              "October", "November", "December"],
}

# Code names: planted facts use the first lists, distractors the second, so they never collide.
ZH_CODENAMES = ["赤霄", "紫电", "青萍", "湛卢", "龙渊", "太阿", "纯钧", "承影", "鱼肠", "干将", "莫邪", "巨阙",
                "白虹", "流星", "含光", "宵练", "昆吾", "七星", "定光", "照胆"]
ZH_DISTRACT = ["朱雀", "玄武", "白泽", "麒麟", "凤鸣", "鹊桥", "天工", "神农", "伏羲", "女娲", "祝融", "共工"]
EN_CODENAMES = ["Bluefin", "Copperhead", "Nightjar", "Kestrel", "Wolverine", "Marlin", "Osprey", "Puffin",
                "Sandpiper", "Barracuda", "Stingray", "Albatross", "Cormorant", "Heron", "Lynx", "Pelican",
                "Starling", "Wombat", "Narwhal", "Ibex"]
EN_DISTRACT = ["Falcon", "Badger", "Otter", "Raven", "Panther", "Walrus", "Condor", "Gecko", "Mongoose",
               "Jackal", "Beaver", "Coyote"]


def _zh_person(r: random.Random) -> str:
    return r.choice(ZH["surname"]) + r.choice(ZH["given"])


def _en_person(r: random.Random) -> str:
    return f"{r.choice(EN['first'])} {r.choice(EN['last'])}"


def _pct(r: random.Random) -> str:
    return f"{r.randint(5, 95)}"


# ---------------------------------------------------------------- sentence templates


def _zh_sentence(r: random.Random) -> str:
    w = {k: r.choice(v) for k, v in ZH.items() if isinstance(v, list)}
    p, q = _zh_person(r), _zh_person(r)
    n1 = r.randint(20, 400)
    year = r.randint(2021, 2025)
    quarter = r.choice(["第一季度", "第二季度", "第三季度", "第四季度", "上半年", "下半年"])
    t = r.randrange(14)
    if t == 0:
        return (f"{year}年{quarter}，{w['org']}{w['dept']}完成了{w['project']}的{w['phase']}，"
                f"{w['metric']}较上期改善了{_pct(r)}%。")
    if t == 1:
        return (f"{p}在{w['city']}主持召开了{w['project']}专题会，会议决定{w['suggest']}，"
                f"预计{r.randint(1, 12)}月底前完成。")
    if t == 2:
        return f"据统计，{w['dept']}本月共处理{n1}个{w['item']}，其中{_pct(r)}%来自{w['channel']}。"
    if t == 3:
        return f"为降低{w['risk']}的影响，{w['dept']}计划在{w['city']}机房增加{r.randint(2, 40)}台{w['device']}。"
    if t == 4:
        return f"{p}指出，{w['project']}目前的主要问题是{w['problem']}，建议{w['suggest']}。"
    if t == 5:
        return f"本次{w['event']}共有{n1}名{w['role']}参加，满意度评分为{r.randint(30, 50) / 10:.1f}分。"
    if t == 6:
        other = r.choice([o for o in ZH["org"] if o != w["org"]])
        return (f"{w['org']}与{other}签署了{w['agreement']}，合作期限为{r.randint(1, 5)}年，"
                f"首期投入约{n1}万元。")
    if t == 7:
        return f"{w['dept']}提醒各部门：{w['policy']}自{r.randint(1, 12)}月{r.randint(1, 28)}日起执行。"
    if t == 8:
        return f"在{w['phase']}阶段，团队共修复{n1}个缺陷，剩余{r.randint(1, 30)}个低优先级问题将在下个迭代处理。"
    if t == 9:
        return f"{w['city']}基地的{w['metric']}已连续{r.randint(2, 12)}周达到年度目标，{q}对此表示肯定。"
    if t == 10:
        return f"{p}负责的{w['project']}预算为{n1 * 10}万元，截至目前已使用{_pct(r)}%。"
    if t == 11:
        return f"{w['device']}在{w['city']}试点期间出现{r.randint(1, 9)}次异常，均已由{w['dept']}处理完毕。"
    if t == 12:
        return f"下周{p}将与{q}一起走访{w['city']}的重点客户，收集关于{w['project']}的反馈。"
    return f"{w['dept']}建议把{w['metric']}纳入季度考核，并由{p}牵头制定具体口径。"


def _en_sentence(r: random.Random) -> str:
    w = {k: r.choice(v) for k, v in EN.items() if isinstance(v, list)}
    p, q = _en_person(r), _en_person(r)
    n1 = r.randint(20, 400)
    year, quarter = r.randint(2021, 2025), r.choice(["Q1", "Q2", "Q3", "Q4", "the first half", "the second half"])
    t = r.randrange(14)
    if t == 0:
        return (f"In {quarter} of {year} the {w['dept']} at {w['org']} completed the {w['phase']} of {w['project']}, "
                f"improving the {w['metric']} by {_pct(r)}% on the previous period.")
    if t == 1:
        return (f"{p} chaired a review of {w['project']} in {w['city']}; the group agreed to {w['suggest']} "
                f"by the end of {w['month']}.")
    if t == 2:
        return f"The {w['dept']} handled {n1} {w['item']} this month, {_pct(r)}% of them through {w['channel']}."
    if t == 3:
        return (f"To reduce the risk of {w['risk']}, the {w['dept']} will add {r.randint(2, 40)} units of the "
                f"{w['device']} in {w['city']}.")
    if t == 4:
        return (f"According to {p}, the main problem in {w['project']} is that {w['problem']}; "
                f"the proposal is to {w['suggest']}.")
    if t == 5:
        return f"The {w['event']} drew {n1} {w['role']}, who rated it {r.randint(30, 50) / 10:.1f} out of 5."
    if t == 6:
        other = r.choice([o for o in EN["org"] if o != w["org"]])
        return (f"{w['org']} signed {w['agreement']} with {other} for {r.randint(1, 5)} years, "
                f"with an initial commitment of about {n1} thousand euros.")
    if t == 7:
        return f"The {w['dept']} reminds everyone that {w['policy']} apply from {w['month']} {r.randint(1, 28)}."
    if t == 8:
        return (f"During {w['phase']} the team fixed {n1} defects; {r.randint(1, 30)} low-priority issues "
                f"move to the next iteration.")
    if t == 9:
        return (f"The {w['metric']} at the {w['city']} site has met the annual target for "
                f"{r.randint(2, 12)} weeks in a row.")
    if t == 10:
        return f"{w['project']}, owned by {p}, has a budget of {n1 * 10} thousand euros, {_pct(r)}% of which is spent."
    if t == 11:
        return (f"The {w['device']} pilot in {w['city']} logged {r.randint(1, 9)} faults, "
                f"all resolved by the {w['dept']}.")
    if t == 12:
        return f"Next week {p} and {q} will visit key customers in {w['city']} to collect feedback on {w['project']}."
    return f"The {w['dept']} proposes adding the {w['metric']} to the quarterly scorecard, with {p} defining it."


# ---------------------------------------------------------------- facts (planted and distractors)


@dataclass(frozen=True)
class Fact:
    text: str       # the paragraph written into the document
    contains: str   # the evidence string (a substring of text)
    question: str
    answer: str


def _zh_fact(r: random.Random, code: str, codename: str, kind: int) -> Fact:
    p, city, amount = _zh_person(r), r.choice(ZH["city"]), r.randint(12, 980)
    if kind == 0:
        c = f"编号{code}的采购合同由{p}负责，合同金额为{amount}万元"
        return Fact(f"{c}，交付地点在{city}。", c, f"{code}号采购合同的金额是多少？", f"{amount}万元")
    if kind == 1:
        c = f"{codename}项目的验收负责人是{p}"
        return Fact(f"{c}，验收会定于{r.randint(1, 12)}月{r.randint(1, 28)}日在{city}举行。", c,
                    f"谁负责{codename}项目的验收？", p)
    device = r.choice(ZH["device"])
    c = f"型号为{code}的{device}保修期为{r.randint(6, 60)}个月"
    return Fact(f"{c}，过保维修由{r.choice(ZH['dept'])}统一安排。", c, f"{code}型号{device}的保修期有多长？",
                c.split("保修期为")[1])


def _en_fact(r: random.Random, code: str, codename: str, kind: int) -> Fact:
    p, city, amount = _en_person(r), r.choice(EN["city"]), r.randint(12, 980)
    if kind == 0:
        c = f"Purchase order {code} was approved by {p} for {amount} thousand euros"
        return Fact(f"{c}, with delivery to the {city} warehouse.", c, f"Who approved purchase order {code}?", p)
    if kind == 1:
        c = f"The {codename} programme is led by {p}"
        return Fact(f"{c}; its steering review takes place in {city} in {r.choice(EN['month'])}.", c,
                    f"Who is in charge of the {codename} programme?", p)
    device, hours = r.choice(EN["device"]), r.randint(6, 96)
    c = f"Firmware {code} raised the battery life of the {device} to {hours} hours"
    return Fact(f"{c} in field tests near {city}.", c, f"How long does the {device} battery last with firmware {code}?",
                f"{hours} hours")


def _distractor(r: random.Random, zh: bool) -> str:
    kind = r.randrange(3)
    if zh:
        code = f"HT-{r.randint(2021, 2025)}-0{r.randint(0, 999):03d}" if kind != 2 else f"XH-{r.randint(100, 899)}"
        return _zh_fact(r, code, r.choice(ZH_DISTRACT), kind).text
    code = f"PO-4{r.randint(0, 9999):04d}" if kind != 2 else f"v{r.randint(1, 3)}.{r.randint(0, 9)}.{r.randint(0, 9)}"
    return _en_fact(r, code, r.choice(EN_DISTRACT), kind).text


def planted_facts(n_docs: int) -> dict[int, list[tuple[int, Fact]]]:
    """doc index → [(paragraph index, fact)] for the planted facts that fall in the first ``n_docs`` documents."""
    out: dict[int, list[tuple[int, Fact]]] = {}
    for j in range(2 * len(ZH_CODENAMES)):
        zh = j % 2 == 0
        k = j // 2
        r = random.Random(f"fact-{j}")
        doc = (2 * k + (0 if zh else 1)) % FACT_DOCS
        if doc >= n_docs:
            continue
        kind = k % 3
        if zh:
            code = f"HT-2024-1{k:03d}" if kind == 0 else f"XH-9{k:02d}"
            fact = _zh_fact(r, code, ZH_CODENAMES[k], kind)
        else:
            code = f"PO-58{k:03d}" if kind == 0 else f"v9.{k // 10}.{k % 10}"
            fact = _en_fact(r, code, EN_CODENAMES[k], kind)
        out.setdefault(doc, []).append((j, fact))
    return out


# ---------------------------------------------------------------- documents


def _sections(r: random.Random, n_paragraphs: int) -> list[int]:
    """Split n paragraphs into 6–12 sections (fewer when n is small)."""
    k = max(1, min(n_paragraphs, r.randint(6, 12)))
    cuts = sorted(r.sample(range(1, n_paragraphs), k - 1)) if k > 1 else []
    bounds = [0, *cuts, n_paragraphs]
    return [b - a for a, b in itertools.pairwise(bounds)]


def document(i: int, nodes_per_doc: int = 100) -> tuple[str, ParsedDocument, list[tuple[str, Fact]]]:
    """(file name, parsed tree, [(section title, planted fact)]) of generated document ``i``."""
    r = random.Random(f"doc-{i}")
    zh = i % 2 == 0
    words = ZH if zh else EN
    name = f"{r.choice(words['kind'])}_{i:05d}.md"
    facts = dict(planted_facts(FACT_DOCS).get(i, []))
    slots = {(17 + 31 * n) % nodes_per_doc: fact for n, fact in enumerate(facts.values())}
    titles = r.sample(words["section"], min(len(words["section"]), 12))
    planted: list[tuple[str, Fact]] = []
    sections = []
    pos = 0
    for s, size in enumerate(_sections(r, nodes_per_doc)):
        title = f"{s + 1}. {titles[s % len(titles)]}"
        paras = []
        for _ in range(size):
            if pos in slots:
                paras.append(paragraph(slots[pos].text))
                planted.append((title, slots[pos]))
            elif r.random() < 0.04:
                paras.append(paragraph(_distractor(r, zh)))
            else:
                gen = _zh_sentence if zh else _en_sentence
                sentences = [gen(r) for _ in range(1 if r.random() < 0.55 else 2)]
                paras.append(paragraph(("" if zh else " ").join(sentences)))
            pos += 1
        sections.append(section(title, paras))
    return name, ParsedDocument(title=name.rsplit(".", 1)[0], file_type="md", children=sections), planted


def documents_for(n_nodes: int, nodes_per_doc: int = 100) -> int:
    return max(1, -(-n_nodes // nodes_per_doc))


def questions(n_docs: int, nodes_per_doc: int = 100) -> list[EvalItem]:
    """The planted-fact questions answerable within the first ``n_docs`` documents, as golden items."""
    items = []
    for i in range(min(n_docs, FACT_DOCS)):
        name, _doc, planted = document(i, nodes_per_doc)
        for title, fact in planted:
            zh = i % 2 == 0
            items.append(EvalItem(
                id=f"scale-{len(items)}", question=fact.question, answers=[fact.answer],
                evidence=[Evidence(document=name, section=title, contains=fact.contains)],
                type="single_hop", language="zh" if zh else "en"))
    return items
