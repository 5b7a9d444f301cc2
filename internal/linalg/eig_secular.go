package linalg

import "math"

// The secular equation of a rank-one modified diagonal matrix,
//
//	f(λ) = 1/ρ + Σ_j z_j² / (d_j − λ) = 0,
//
// whose roots are the eigenvalues of diag(d) + ρ z zᵀ (d strictly increasing,
// ρ > 0, ‖z‖ ≈ 1). The three functions below follow LAPACK's DLAED4, DLAED5
// and DLAED6 (Ren-Cang Li, "Solving secular equations stably and
// efficiently", LAPACK Working Note 89, 1993): each root is found by rational
// interpolation of the two (or three) nearest poles, with the origin moved to
// the nearer pole so that the differences d_j − λ, which the eigenvectors
// are built from, are computed to full relative accuracy.

const (
	// dlamchE is LAPACK's DLAMCH('E'), the unit roundoff 2⁻⁵³.
	dlamchE = 1.0 / (1 << 53)
	// secularMaxIter is DLAED4's MAXIT.
	secularMaxIter = 30
)

// secularRoot computes the root λ_i (0-based i) of the secular equation of
// d, z and rho, and delta[j] = d_j − λ_i for every j. For n = 2 delta holds
// the normalized eigenvector instead (DLAED5), and for n = 1 it is one. ok
// is false when the iteration did not converge (DLAED4's INFO = 1).
func secularRoot(i int, d, z, delta []float64, rho float64) (lambda float64, ok bool) {
	n := len(d)
	switch n {
	case 1:
		delta[0] = 1
		return d[0] + rho*z[0]*z[0], true
	case 2:
		return secular2(i, d, z, delta, rho), true
	}
	if i == n-1 {
		return secularLast(d, z, delta, rho)
	}
	return secularInner(i, d, z, delta, rho)
}

// secularLast is DLAED4 for the largest root, which lies in
// (d_{n−1}, d_{n−1} + ρ].
func secularLast(d, z, delta []float64, rho float64) (float64, bool) {
	n := len(d)
	i := n - 1
	ii := n - 2
	rhoinv := 1 / rho
	midpt := rho / 2
	for j := range n {
		delta[j] = (d[j] - d[i]) - midpt
	}
	psi := 0.0
	for j := 0; j < n-2; j++ {
		psi += z[j] * z[j] / delta[j]
	}
	c := rhoinv + psi
	w := c + z[ii]*z[ii]/delta[ii] + z[n-1]*z[n-1]/delta[n-1]

	var tau, dltlb, dltub float64
	initial := func() float64 {
		del := d[n-1] - d[n-2]
		a := -c*del + z[n-2]*z[n-2] + z[n-1]*z[n-1]
		b := z[n-1] * z[n-1] * del
		if a < 0 {
			return 2 * b / (math.Sqrt(a*a+4*b*c) - a)
		}
		return (a + math.Sqrt(a*a+4*b*c)) / (2 * c)
	}
	if w <= 0 {
		temp := z[n-2]*z[n-2]/(d[n-1]-d[n-2]+rho) + z[n-1]*z[n-1]/rho
		if c <= temp {
			tau = rho
		} else {
			tau = initial()
		}
		// d_{n−1} + ρ/2 ≤ λ < d_{n−1} + τ ≤ d_{n−1} + ρ.
		dltlb, dltub = midpt, rho
	} else {
		tau = initial()
		// d_{n−1} < d_{n−1} + τ < λ < d_{n−1} + ρ/2.
		dltlb, dltub = 0, midpt
	}
	for j := range n {
		delta[j] = (d[j] - d[i]) - tau
	}

	var dpsi, dphi, phi, erretm float64
	eval := func() {
		dpsi, psi, erretm = 0, 0, 0
		for j := 0; j <= ii; j++ {
			t := z[j] / delta[j]
			psi += z[j] * t
			dpsi += t * t
			erretm += psi
		}
		erretm = math.Abs(erretm)
		t := z[n-1] / delta[n-1]
		phi = z[n-1] * t
		dphi = t * t
		erretm = 8*(-phi-psi) + erretm - phi + rhoinv + math.Abs(tau)*(dpsi+dphi)
		w = rhoinv + phi + psi
	}
	eval()
	for iter := 2; iter <= secularMaxIter; iter++ {
		if math.Abs(w) <= dlamchE*erretm {
			return d[i] + tau, true
		}
		if w <= 0 {
			dltlb = math.Max(dltlb, tau)
		} else {
			dltub = math.Min(dltub, tau)
		}
		// The new step, from the two poles d_{n−2} and d_{n−1}.
		dn1, dn := delta[n-2], delta[n-1]
		c := w - dn1*dpsi - dn*dphi
		a := (dn1+dn)*w - dn1*dn*(dpsi+dphi)
		b := dn1 * dn * w
		first := iter == 2
		if first && c < 0 {
			c = -c
		}
		var eta float64
		switch {
		case first && c == 0:
			eta = dltub - tau
		case a >= 0:
			eta = (a + math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
		default:
			eta = 2 * b / (a - math.Sqrt(math.Abs(a*a-4*b*c)))
		}
		// η must have the sign opposite to w; if rounding says otherwise,
		// take a Newton step instead.
		if w*eta > 0 {
			eta = -w / (dpsi + dphi)
		}
		if t := tau + eta; t > dltub || t < dltlb {
			if w < 0 {
				eta = (dltub - tau) / 2
			} else {
				eta = (dltlb - tau) / 2
			}
		}
		for j := range n {
			delta[j] -= eta
		}
		tau += eta
		eval()
	}
	return d[i] + tau, false
}

// secularInner is DLAED4 for a root λ_i in (d_i, d_{i+1}), i < n−1.
func secularInner(i int, d, z, delta []float64, rho float64) (float64, bool) {
	n := len(d)
	ip1 := i + 1
	rhoinv := 1 / rho
	del := d[ip1] - d[i]
	midpt := del / 2
	for j := range n {
		delta[j] = (d[j] - d[i]) - midpt
	}
	psi := 0.0
	for j := range i {
		psi += z[j] * z[j] / delta[j]
	}
	phi := 0.0
	for j := n - 1; j >= i+2; j-- {
		phi += z[j] * z[j] / delta[j]
	}
	c := rhoinv + psi + phi
	w := c + z[i]*z[i]/delta[i] + z[ip1]*z[ip1]/delta[ip1]

	// The origin is the nearer pole: d_i if the root is left of the
	// midpoint, d_{i+1} otherwise.
	var orgati bool
	var tau, dltlb, dltub float64
	if w > 0 {
		orgati = true
		a := c*del + z[i]*z[i] + z[ip1]*z[ip1]
		b := z[i] * z[i] * del
		if a > 0 {
			tau = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
		} else {
			tau = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
		}
		dltlb, dltub = 0, midpt
	} else {
		a := c*del - z[i]*z[i] - z[ip1]*z[ip1]
		b := z[ip1] * z[ip1] * del
		if a < 0 {
			tau = 2 * b / (a - math.Sqrt(math.Abs(a*a+4*b*c)))
		} else {
			tau = -(a + math.Sqrt(math.Abs(a*a+4*b*c))) / (2 * c)
		}
		dltlb, dltub = -midpt, 0
	}
	ii := ip1
	if orgati {
		ii = i
	}
	origin := d[ii]
	for j := range n {
		delta[j] = (d[j] - origin) - tau
	}
	iim1, iip1 := ii-1, ii+1

	var dpsi, dphi, dw, erretm float64
	// eval computes ψ (poles left of ii), φ (right of ii), their
	// derivatives, f and its error bound at the current τ + η.
	eval := func(step float64) {
		dpsi, psi, erretm = 0, 0, 0
		for j := 0; j <= iim1; j++ {
			t := z[j] / delta[j]
			psi += z[j] * t
			dpsi += t * t
			erretm += psi
		}
		erretm = math.Abs(erretm)
		dphi, phi = 0, 0
		for j := n - 1; j >= iip1; j-- {
			t := z[j] / delta[j]
			phi += z[j] * t
			dphi += t * t
			erretm += phi
		}
		t := z[ii] / delta[ii]
		dw = dpsi + dphi + t*t
		t *= z[ii]
		w = rhoinv + phi + psi + t
		erretm = 8*(phi-psi) + erretm + 2*rhoinv + 3*math.Abs(t) + math.Abs(step)*dw
	}
	eval(tau)

	// With the root between two interior poles and f of the wrong sign at
	// the origin, interpolate three poles (DLAED6) instead of two.
	swtch3 := false
	wRest := rhoinv + phi + psi // f without the ii-th term
	if orgati {
		swtch3 = wRest < 0
	} else {
		swtch3 = wRest > 0
	}
	if ii == 0 || ii == n-1 {
		swtch3 = false
	}
	zz := [3]float64{0, z[ii] * z[ii], 0}

	if math.Abs(w) <= dlamchE*erretm {
		return origin + tau, true
	}
	swtch := false
	var prew float64
	for iter := 2; iter <= secularMaxIter; iter++ {
		if iter > 2 && math.Abs(w) <= dlamchE*erretm {
			return origin + tau, true
		}
		if w <= 0 {
			dltlb = math.Max(dltlb, tau)
		} else {
			dltub = math.Min(dltub, tau)
		}
		di, dip1 := delta[i], delta[ip1]
		var eta float64
		if !swtch3 {
			var c float64
			if !swtch {
				if orgati {
					t := z[i] / di
					c = w - dip1*dw - (d[i]-d[ip1])*t*t
				} else {
					t := z[ip1] / dip1
					c = w - di*dw - (d[ip1]-d[i])*t*t
				}
			} else {
				t := z[ii] / delta[ii]
				if orgati {
					dpsi += t * t
				} else {
					dphi += t * t
				}
				c = w - di*dpsi - dip1*dphi
			}
			a := (di+dip1)*w - di*dip1*dw
			b := di * dip1 * w
			switch {
			case c == 0:
				if a == 0 {
					switch {
					case swtch:
						a = di*di*dpsi + dip1*dip1*dphi
					case orgati:
						a = z[i]*z[i] + dip1*dip1*(dpsi+dphi)
					default:
						a = z[ip1]*z[ip1] + di*di*(dpsi+dphi)
					}
				}
				eta = b / a
			case a <= 0:
				eta = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
			default:
				eta = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
			}
		} else {
			t := rhoinv + psi + phi
			var c float64
			switch {
			case swtch:
				c = t - delta[iim1]*dpsi - delta[iip1]*dphi
				zz[0] = delta[iim1] * delta[iim1] * dpsi
				zz[2] = delta[iip1] * delta[iip1] * dphi
			case orgati:
				t1 := z[iim1] / delta[iim1]
				t1 *= t1
				c = t - delta[iip1]*(dpsi+dphi) - (d[iim1]-d[iip1])*t1
				zz[0] = z[iim1] * z[iim1]
				zz[2] = delta[iip1] * delta[iip1] * ((dpsi - t1) + dphi)
			default:
				t1 := z[iip1] / delta[iip1]
				t1 *= t1
				c = t - delta[iim1]*(dpsi+dphi) - (d[iip1]-d[iim1])*t1
				zz[0] = delta[iim1] * delta[iim1] * (dpsi + (dphi - t1))
				zz[2] = z[iip1] * z[iip1]
			}
			var ok bool
			eta, ok = secular3(iter, orgati, c, delta[iim1:iim1+3], zz[:], w)
			if !ok {
				return origin + tau, false
			}
		}
		// η must have the sign opposite to w; if rounding says otherwise,
		// take a Newton step instead.
		if w*eta >= 0 {
			eta = -w / dw
		}
		if t := tau + eta; t > dltub || t < dltlb {
			if w < 0 {
				eta = (dltub - tau) / 2
			} else {
				eta = (dltlb - tau) / 2
			}
		}
		for j := range n {
			delta[j] -= eta
		}
		prew = w
		tau += eta
		eval(tau)
		if iter == 2 {
			// After the first step: switch to the other interpolation if f
			// did not change sign and shrank too little.
			if orgati {
				swtch = -w > math.Abs(prew)/10
			} else {
				swtch = w > math.Abs(prew)/10
			}
		} else if w*prew > 0 && math.Abs(w) > math.Abs(prew)/10 {
			swtch = !swtch
		}
	}
	return origin + tau, false
}

// secular2 is DLAED5: the root i ∈ {0, 1} of a 2×2 problem, with delta set
// to the normalized eigenvector.
func secular2(i int, d, z, delta []float64, rho float64) float64 {
	del := d[1] - d[0]
	var lambda float64
	if i == 0 {
		w := 1 + 2*rho*(z[1]*z[1]-z[0]*z[0])/del
		if w > 0 {
			b := del + rho*(z[0]*z[0]+z[1]*z[1])
			c := rho * z[0] * z[0] * del
			// b > 0 always.
			tau := 2 * c / (b + math.Sqrt(math.Abs(b*b-4*c)))
			lambda = d[0] + tau
			delta[0] = -z[0] / tau
			delta[1] = z[1] / (del - tau)
		} else {
			b := -del + rho*(z[0]*z[0]+z[1]*z[1])
			c := rho * z[1] * z[1] * del
			var tau float64
			if b > 0 {
				tau = -2 * c / (b + math.Sqrt(b*b+4*c))
			} else {
				tau = (b - math.Sqrt(b*b+4*c)) / 2
			}
			lambda = d[1] + tau
			delta[0] = -z[0] / (del + tau)
			delta[1] = -z[1] / tau
		}
	} else {
		b := -del + rho*(z[0]*z[0]+z[1]*z[1])
		c := rho * z[1] * z[1] * del
		var tau float64
		if b > 0 {
			tau = (b + math.Sqrt(b*b+4*c)) / 2
		} else {
			tau = 2 * c / (-b + math.Sqrt(b*b+4*c))
		}
		lambda = d[1] + tau
		delta[0] = -z[0] / (del + tau)
		delta[1] = -z[1] / tau
	}
	t := math.Hypot(delta[0], delta[1])
	delta[0] /= t
	delta[1] /= t
	return lambda
}

// secular3 is DLAED6: one correction η of the secular function
// g(t) = ρ + Σ_{j<3} z_j / (d_j − t) started at t = 0 where g(0) = finit,
// by the cubically convergent scheme of Gragg, Thornton and Warner. orgati
// says whether the root lies in (d_1, d_2) (true) or (d_0, d_1) (false).
// kniter = 2 asks for an initial guess by interpolation.
func secular3(kniter int, orgati bool, rho float64, d, z []float64, finit float64) (float64, bool) {
	const maxIter = 40
	var lbd, ubd float64
	if orgati {
		lbd, ubd = d[1], d[2]
	} else {
		lbd, ubd = d[0], d[1]
	}
	if finit < 0 {
		lbd = 0
	} else {
		ubd = 0
	}
	tau := 0.0
	if kniter == 2 {
		var a, b, c float64
		if orgati {
			t := (d[2] - d[1]) / 2
			c = rho + z[0]/((d[0]-d[1])-t)
			a = c*(d[1]+d[2]) + z[1] + z[2]
			b = c*d[1]*d[2] + z[1]*d[2] + z[2]*d[1]
		} else {
			t := (d[0] - d[1]) / 2
			c = rho + z[2]/((d[2]-d[1])-t)
			a = c*(d[0]+d[1]) + z[0] + z[1]
			b = c*d[0]*d[1] + z[0]*d[1] + z[1]*d[0]
		}
		t := math.Max(math.Abs(a), math.Max(math.Abs(b), math.Abs(c)))
		a /= t
		b /= t
		c /= t
		switch {
		case c == 0:
			tau = b / a
		case a <= 0:
			tau = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
		default:
			tau = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
		}
		if tau < lbd || tau > ubd {
			tau = (lbd + ubd) / 2
		}
		if d[0] == tau || d[1] == tau || d[2] == tau {
			tau = 0
		} else {
			t := finit + tau*z[0]/(d[0]*(d[0]-tau)) +
				tau*z[1]/(d[1]*(d[1]-tau)) +
				tau*z[2]/(d[2]*(d[2]-tau))
			if t <= 0 {
				lbd = tau
			} else {
				ubd = tau
			}
			if math.Abs(finit) <= math.Abs(t) {
				tau = 0
			}
		}
	}

	// Scale up when a pole is so close that 1/(d−τ)³ could overflow;
	// safe because d, z and τ are O(1) here.
	const (
		small1 = 0x1p-340 // radix^⌊log_radix(safmin)/3⌋
		sminv1 = 0x1p+340
		small2 = small1 * small1
		sminv2 = sminv1 * sminv1
	)
	var temp float64
	if orgati {
		temp = math.Min(math.Abs(d[1]-tau), math.Abs(d[2]-tau))
	} else {
		temp = math.Min(math.Abs(d[0]-tau), math.Abs(d[1]-tau))
	}
	var ds, zs [3]float64
	scale := false
	var sclinv float64
	if temp <= small1 {
		scale = true
		sclfac := sminv1
		sclinv = small1
		if temp <= small2 {
			sclfac = sminv2
			sclinv = small2
		}
		for j := range 3 {
			ds[j] = d[j] * sclfac
			zs[j] = z[j] * sclfac
		}
		tau *= sclfac
		lbd *= sclfac
		ubd *= sclfac
	} else {
		copy(ds[:], d)
		copy(zs[:], z)
	}

	var fc, df, ddf float64
	for j := range 3 {
		t := 1 / (ds[j] - tau)
		t1 := zs[j] * t
		t2 := t1 * t
		t3 := t2 * t
		fc += t1 / ds[j]
		df += t2
		ddf += t3
	}
	f := finit + tau*fc
	ok := false
	if math.Abs(f) <= 0 {
		ok = true
	} else {
		if f <= 0 {
			lbd = tau
		} else {
			ubd = tau
		}
		// Gragg–Thornton–Warner iteration: monotonic upwards if
		// finit < 0, downwards if finit > 0.
		for range maxIter - 1 {
			var t1, t2 float64
			if orgati {
				t1, t2 = ds[1]-tau, ds[2]-tau
			} else {
				t1, t2 = ds[0]-tau, ds[1]-tau
			}
			a := (t1+t2)*f - t1*t2*df
			b := t1 * t2 * f
			c := f - (t1+t2)*df + t1*t2*ddf
			t := math.Max(math.Abs(a), math.Max(math.Abs(b), math.Abs(c)))
			a /= t
			b /= t
			c /= t
			var eta float64
			switch {
			case c == 0:
				eta = b / a
			case a <= 0:
				eta = (a - math.Sqrt(math.Abs(a*a-4*b*c))) / (2 * c)
			default:
				eta = 2 * b / (a + math.Sqrt(math.Abs(a*a-4*b*c)))
			}
			if f*eta >= 0 {
				eta = -f / df
			}
			tau += eta
			if tau < lbd || tau > ubd {
				tau = (lbd + ubd) / 2
			}
			fc, df, ddf = 0, 0, 0
			erretm := 0.0
			for j := range 3 {
				t := 1 / (ds[j] - tau)
				t1 := zs[j] * t
				t2 := t1 * t
				t3 := t2 * t
				t4 := t1 / ds[j]
				fc += t4
				erretm += math.Abs(t4)
				df += t2
				ddf += t3
			}
			f = finit + tau*fc
			erretm = 8*(math.Abs(finit)+math.Abs(tau)*erretm) + math.Abs(tau)*df
			if math.Abs(f) <= dlamchE*erretm {
				ok = true
				break
			}
			if f <= 0 {
				lbd = tau
			} else {
				ubd = tau
			}
		}
	}
	if scale {
		tau *= sclinv
	}
	return tau, ok
}
