"""The style of what the pages' scripts draw: dice as pips, the cup, the story of a
table, the play page's buttons. Shared by every page, inline like the rest (no fetch)."""

LIVE_CSS = """
.die{display:inline-grid;grid-template:repeat(3,1fr)/repeat(3,1fr);width:1.7em;height:1.7em;
padding:.2em;box-sizing:border-box;background:#fff;border:1.5px solid #52606d;border-radius:.32em;
vertical-align:middle;margin:0 .22em 0 0}
.die i{width:.36em;height:.36em;border-radius:50%;place-self:center;background:transparent}
.die i.pip{background:#1f2933}
.die.hidden{background:#e4e7eb;border-style:dashed;color:#52606d;display:inline-flex;
align-items:center;justify-content:center;font-weight:800}
.dice{white-space:nowrap}
.big .die{font-size:30px}
ol.story{list-style:none;margin:0;padding:0}
ol.story li{padding:7px 0;border-bottom:1px solid #eef0f2}
ol.story li .turn{color:#616e7c;font-size:12px;margin-right:6px;font-variant-numeric:tabular-nums}
ol.story li p{margin:0}
ol.story li .dice{display:block;margin-top:4px;font-size:15px}
ol.story li.mine{background:#f5f9ff}
.status{color:#52606d;margin:0 0 8px}
.seats td.num{font-variant-numeric:tabular-nums}
.seats tr.me td{font-weight:700}
.seats tr.gone td{color:#616e7c;text-decoration:line-through}
.cup{display:flex;align-items:center;gap:16px;flex-wrap:wrap}
.cup .what{font-size:15px;color:#52606d}
.actions{display:flex;flex-wrap:wrap;gap:10px}
.actions button{font-size:18px;padding:12px 18px;min-width:88px;border-radius:10px;
background:#1d4ed8;touch-action:manipulation}
.actions button.doubt{background:#b91c1c}
.actions button.announce{background:#fff;color:#1f2933;border:2px solid #1d4ed8;min-width:64px;
padding:10px 12px;font-variant-numeric:tabular-nums}
.actions button.announce.truth{border-color:#166534;background:#ecfdf3}
.actions button:disabled{opacity:.45}
.notice{border-left:4px solid #2563eb;background:#eef4ff;padding:10px 12px;border-radius:6px;
margin:0 0 14px}
.notice.bad{border-color:#b91c1c;background:#fef2f2}
.notice.good{border-color:#166534;background:#ecfdf3}
.link{overflow-wrap:anywhere;font-size:13px}
.your-turn{outline:3px solid #2563eb}
main.narrow{max-width:880px;margin:0 auto}
@media (max-width:600px){.seats th,.seats td{padding:5px 6px}}
"""
